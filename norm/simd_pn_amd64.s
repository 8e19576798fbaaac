//go:build amd64 && !purego

#include "textflag.h"

// PowerNorm's kernels (simd_amd64.s says what every kernel requires).

// func pnFwd32AVX(x []float32, sc float64, acc, a, gam, bet []float64, y []float32)
// xs = x·sc; acc += xs²; y = float32(γ·(xs·a) + β)
TEXT ·pnFwd32AVX(SB), NOSPLIT, $0-152
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         acc_base+32(FP), R9
	MOVQ         a_base+56(FP), R10
	MOVQ         gam_base+80(FP), DX
	MOVQ         bet_base+104(FP), R8
	MOVQ         y_base+128(FP), DI
	VBROADCASTSD sc+24(FP), Y15
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           pnfdone

pnfloop:
	VCVTPS2PD  (SI)(AX*4), Y0
	VMULPD     Y15, Y0, Y0
	VMULPD     Y0, Y0, Y1
	VADDPD     (R9)(AX*8), Y1, Y1
	VMOVUPD    Y1, (R9)(AX*8)
	VMULPD     (R10)(AX*8), Y0, Y0
	VMULPD     (DX)(AX*8), Y0, Y0
	VADDPD     (R8)(AX*8), Y0, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS    X0, (DI)(AX*4)
	ADDQ       $4, AX
	CMPQ       AX, CX
	JB         pnfloop

pnfdone:
	VZEROUPPER
	RET

// func pnRowGroup32AVX(x, g []float32, gam []float64, sc float64, a, ab, nu, dgam, dbet, rb []float64) float64
// xs = x·sc; x̂ = xs·a; dγ += g·x̂; dβ += g; rb = (γg - ν·x̂)·ab; Σ rb·xs
TEXT ·pnRowGroup32AVX(SB), NOSPLIT, $0-232
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         g_base+24(FP), BX
	MOVQ         gam_base+48(FP), DX
	VBROADCASTSD sc+72(FP), Y15
	MOVQ         a_base+80(FP), R8
	MOVQ         ab_base+104(FP), R9
	MOVQ         nu_base+128(FP), R10
	MOVQ         dgam_base+152(FP), R11
	MOVQ         dbet_base+176(FP), R12
	MOVQ         rb_base+200(FP), R13
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           pnrdone

pnrloop:
	VCVTPS2PD (SI)(AX*4), Y0
	VMULPD    Y15, Y0, Y0
	VMULPD    (R8)(AX*8), Y0, Y1
	VCVTPS2PD (BX)(AX*4), Y2
	VMULPD    Y2, Y1, Y3
	VADDPD    (R11)(AX*8), Y3, Y3
	VMOVUPD   Y3, (R11)(AX*8)
	VADDPD    (R12)(AX*8), Y2, Y4
	VMOVUPD   Y4, (R12)(AX*8)
	VMULPD    (DX)(AX*8), Y2, Y2
	VMULPD    (R10)(AX*8), Y1, Y1
	VSUBPD    Y1, Y2, Y2
	VMULPD    (R9)(AX*8), Y2, Y2
	VMOVUPD   Y2, (R13)(AX*8)
	VMULPD    Y0, Y2, Y2
	VADDPD    Y2, Y8, Y8

	VCVTPS2PD 16(SI)(AX*4), Y0
	VMULPD    Y15, Y0, Y0
	VMULPD    32(R8)(AX*8), Y0, Y1
	VCVTPS2PD 16(BX)(AX*4), Y2
	VMULPD    Y2, Y1, Y3
	VADDPD    32(R11)(AX*8), Y3, Y3
	VMOVUPD   Y3, 32(R11)(AX*8)
	VADDPD    32(R12)(AX*8), Y2, Y4
	VMOVUPD   Y4, 32(R12)(AX*8)
	VMULPD    32(DX)(AX*8), Y2, Y2
	VMULPD    32(R10)(AX*8), Y1, Y1
	VSUBPD    Y1, Y2, Y2
	VMULPD    32(R9)(AX*8), Y2, Y2
	VMOVUPD   Y2, 32(R13)(AX*8)
	VMULPD    Y0, Y2, Y2
	VADDPD    Y2, Y9, Y9

	ADDQ $8, AX
	CMPQ AX, CX
	JB   pnrloop

pnrdone:
	VADDPD       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VZEROUPPER
	MOVSD        X8, ret+224(FP)
	RET

// func pnDx32AVX(x []float32, rb []float64, sc, c float64, dx []float32)
// dx = float32(sc·(rb - x·sc·c))
TEXT ·pnDx32AVX(SB), NOSPLIT, $0-88
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         rb_base+24(FP), R8
	MOVQ         dx_base+64(FP), DI
	VBROADCASTSD sc+48(FP), Y15
	VBROADCASTSD c+56(FP), Y14
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           pndxdone

pndxloop:
	VCVTPS2PD  (SI)(AX*4), Y0
	VMULPD     Y15, Y0, Y0
	VMULPD     Y14, Y0, Y0
	VMOVUPD    (R8)(AX*8), Y1
	VSUBPD     Y0, Y1, Y1
	VMULPD     Y15, Y1, Y1
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, (DI)(AX*4)
	ADDQ       $4, AX
	CMPQ       AX, CX
	JB         pndxloop

pndxdone:
	VZEROUPPER
	RET

DATA one<>+0(SB)/8, $1.0
GLOBL one<>(SB), RODATA|NOPTR, $8

// func pnFwdRow32AVX(x []float32, m int, fm, eps float64, gs, acc, a, gam, bet []float64, y []float32) float64
// PowerNorm's forward after warmup for one row of len(gs) groups of m
// features (m a multiple of 16): ψ = Σx² of every group first, then all the
// scales gs = 1/√(ψ/m+ε) (independent, so their divisions and square roots
// overlap instead of stalling each group), then pnFwd32AVX's loop over the
// row. Returns Σψ over the row (finite iff every ψ is).
TEXT ·pnFwdRow32AVX(SB), NOSPLIT, $0-200
	MOVQ  x_base+0(FP), SI
	MOVQ  m+24(FP), R13
	MOVSD fm+32(FP), X13
	MOVSD eps+40(FP), X12
	MOVQ  gs_base+48(FP), R12
	MOVQ  gs_len+56(FP), R11
	MOVQ  acc_base+72(FP), R9
	MOVQ  a_base+96(FP), R10
	MOVQ  gam_base+120(FP), DX
	MOVQ  bet_base+144(FP), R8
	MOVQ  y_base+168(FP), DI
	VXORPD X11, X11, X11
	XORQ  AX, AX
	TESTQ R11, R11
	JZ    pfrdone

pfrgroup:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ   R13, CX
	SHRQ   $4, CX

pfrss:
	VCVTPS2PD   (SI)(AX*4), Y4
	VCVTPS2PD   16(SI)(AX*4), Y5
	VCVTPS2PD   32(SI)(AX*4), Y6
	VCVTPS2PD   48(SI)(AX*4), Y7
	VFMADD231PD Y4, Y4, Y0
	VFMADD231PD Y5, Y5, Y1
	VFMADD231PD Y6, Y6, Y2
	VFMADD231PD Y7, Y7, Y3
	ADDQ        $16, AX
	DECQ      CX
	JNZ       pfrss

	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VADDSD       X1, X0, X0
	VADDSD       X0, X11, X11
	VMOVSD       X0, (R12)
	ADDQ         $8, R12
	DECQ         R11
	JNZ          pfrgroup

	MOVQ   gs_base+48(FP), R12
	MOVQ   gs_len+56(FP), R11
	VMOVSD one<>(SB), X1

pfrscale:
	VMOVSD  (R12), X0
	VDIVSD  X13, X0, X0
	VADDSD  X12, X0, X0
	VSQRTSD X0, X0, X0
	VDIVSD  X0, X1, X0
	VMOVSD  X0, (R12)
	ADDQ    $8, R12
	DECQ    R11
	JNZ     pfrscale

	MOVQ gs_base+48(FP), R12
	MOVQ gs_len+56(FP), R11
	XORQ AX, AX

pfrwgroup:
	VBROADCASTSD (R12), Y15
	ADDQ         $8, R12
	MOVQ         R13, CX
	SHRQ         $2, CX

pfrwrite:
	VCVTPS2PD   (SI)(AX*4), Y0
	VMULPD      Y15, Y0, Y0
	VMOVUPD     (R9)(AX*8), Y1
	VFMADD231PD Y0, Y0, Y1
	VMOVUPD     Y1, (R9)(AX*8)
	VMULPD      (R10)(AX*8), Y0, Y0
	VMOVUPD     (DX)(AX*8), Y2
	VFMADD213PD (R8)(AX*8), Y2, Y0
	VCVTPD2PSY  Y0, X0
	VMOVUPS    X0, (DI)(AX*4)
	ADDQ       $4, AX
	DECQ       CX
	JNZ        pfrwrite

	DECQ R11
	JNZ  pfrwgroup

pfrdone:
	VZEROUPPER
	MOVSD X11, ret+192(FP)
	RET

// func pnBwdRow32AVX(x, g []float32, m int, fm float64, gs, cs, w1, w2, dgxs, dbet, rb []float64, dx []float32)
// PowerNorm's training backward for one row of groups of m features (m a
// multiple of 16), with per-feature w1 = γ⊙ab and w2 = ν⊙a⊙ab prepared by
// the caller: over every group xs = x·gs, dgxs += g·xs (the caller scales
// by a once at the end: dγ = a⊙Σg·xs), dβ += g, rb = g·w1 - xs·w2 and
// cs = Σ rb·xs / m; then dx = float32(gs·(rb - xs·cs)) over the row.
// Two fewer multiplications and loads per element than pnRowGroup32AVX's
// order, which rounds differently only in the last bit.
TEXT ·pnBwdRow32AVX(SB), NOSPLIT, $0-256
	MOVQ  x_base+0(FP), SI
	MOVQ  g_base+24(FP), BX
	MOVSD fm+56(FP), X13
	MOVQ  w1_base+112(FP), DX
	MOVQ  w2_base+136(FP), R8
	MOVQ  dgxs_base+160(FP), R11
	MOVQ  dbet_base+184(FP), R12
	MOVQ  rb_base+208(FP), R13
	MOVQ  dx_base+232(FP), DI
	XORQ  AX, AX
	XORQ  R14, R14
	CMPQ  AX, x_len+8(FP)
	JAE   pbrdone

pbrgroup:
	MOVQ         gs_base+64(FP), CX
	VBROADCASTSD (CX)(R14*1), Y15
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	MOVQ         m+48(FP), CX
	SHRQ         $3, CX

pbra:
	VCVTPS2PD   (SI)(AX*4), Y0
	VMULPD      Y15, Y0, Y0
	VCVTPS2PD   (BX)(AX*4), Y2
	VMOVUPD     (R11)(AX*8), Y3
	VFMADD231PD Y0, Y2, Y3
	VMOVUPD     Y3, (R11)(AX*8)
	VADDPD      (R12)(AX*8), Y2, Y4
	VMOVUPD     Y4, (R12)(AX*8)
	VMULPD      (R8)(AX*8), Y0, Y1
	VFMSUB231PD (DX)(AX*8), Y2, Y1
	VMOVUPD     Y1, (R13)(AX*8)
	VFMADD231PD Y0, Y1, Y8

	VCVTPS2PD   16(SI)(AX*4), Y0
	VMULPD      Y15, Y0, Y0
	VCVTPS2PD   16(BX)(AX*4), Y2
	VMOVUPD     32(R11)(AX*8), Y3
	VFMADD231PD Y0, Y2, Y3
	VMOVUPD     Y3, 32(R11)(AX*8)
	VADDPD      32(R12)(AX*8), Y2, Y4
	VMOVUPD     Y4, 32(R12)(AX*8)
	VMULPD      32(R8)(AX*8), Y0, Y1
	VFMSUB231PD 32(DX)(AX*8), Y2, Y1
	VMOVUPD     Y1, 32(R13)(AX*8)
	VFMADD231PD Y0, Y1, Y9

	ADDQ $8, AX
	DECQ CX
	JNZ  pbra

	VADDPD       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VDIVSD       X13, X8, X8
	MOVQ         cs_base+88(FP), CX
	VMOVSD       X8, (CX)(R14*1)
	ADDQ         $8, R14
	CMPQ         AX, x_len+8(FP)
	JB           pbrgroup

	XORQ AX, AX
	XORQ R14, R14

pbrbgroup:
	MOVQ         gs_base+64(FP), CX
	VBROADCASTSD (CX)(R14*1), Y15
	MOVQ         cs_base+88(FP), CX
	VBROADCASTSD (CX)(R14*1), Y14
	ADDQ         $8, R14
	MOVQ         m+48(FP), CX
	SHRQ         $2, CX

pbrb:
	VCVTPS2PD    (SI)(AX*4), Y0
	VMULPD       Y15, Y0, Y0
	VMOVUPD      (R13)(AX*8), Y1
	VFNMADD231PD Y14, Y0, Y1
	VMULPD       Y15, Y1, Y1
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, (DI)(AX*4)
	ADDQ       $4, AX
	DECQ       CX
	JNZ        pbrb

	CMPQ AX, x_len+8(FP)
	JB   pbrbgroup

pbrdone:
	VZEROUPPER
	RET
