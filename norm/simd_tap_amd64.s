//go:build amd64 && !purego

#include "textflag.h"

// The probes' tap kernels (simd_amd64.s says what every kernel requires).

DATA absmask<>+0(SB)/8, $0x7fffffffffffffff
GLOBL absmask<>(SB), RODATA|NOPTR, $8

// func tapAccum32AVX(x []float32, sc float64, mean, psi []float64) (sum, maxAbs float64)
// Σx, max|x| (meaningless when x holds a NaN: then Σx is NaN and the caller
// rescans), mean += x·sc, psi += (x·sc)².
TEXT ·tapAccum32AVX(SB), NOSPLIT, $0-96
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         mean_base+32(FP), R9
	MOVQ         psi_base+56(FP), R10
	VBROADCASTSD sc+24(FP), Y15
	VBROADCASTSD absmask<>(SB), Y13
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           tapdone

taploop:
	VCVTPS2PD   (SI)(AX*4), Y0
	VADDPD      Y0, Y8, Y8
	VANDPD      Y13, Y0, Y1
	VMAXPD      Y1, Y9, Y9
	VMULPD      Y15, Y0, Y0
	VADDPD      (R9)(AX*8), Y0, Y3
	VMOVUPD     Y3, (R9)(AX*8)
	VMOVUPD     (R10)(AX*8), Y2
	VFMADD231PD Y0, Y0, Y2
	VMOVUPD     Y2, (R10)(AX*8)
	ADDQ      $4, AX
	CMPQ      AX, CX
	JB        taploop

tapdone:
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VEXTRACTF128 $1, Y9, X1
	VMAXPD       X1, X9, X9
	VUNPCKHPD    X9, X9, X1
	VMAXSD       X1, X9, X9
	VZEROUPPER
	MOVSD        X8, sum+80(FP)
	MOVSD        X9, maxAbs+88(FP)
	RET

// func colAccumDev32AVX(x []float32, sc float64, mean, vs []float64)
// vs += (x·sc - mean)²
TEXT ·colAccumDev32AVX(SB), NOSPLIT, $0-80
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         mean_base+32(FP), R9
	MOVQ         vs_base+56(FP), R10
	VBROADCASTSD sc+24(FP), Y15
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           caddone

cadloop:
	VCVTPS2PD   (SI)(AX*4), Y0
	VMULPD      Y15, Y0, Y0
	VSUBPD      (R9)(AX*8), Y0, Y0
	VMOVUPD     (R10)(AX*8), Y1
	VFMADD231PD Y0, Y0, Y1
	VMOVUPD     Y1, (R10)(AX*8)
	ADDQ      $4, AX
	CMPQ      AX, CX
	JB        cadloop

caddone:
	VZEROUPPER
	RET

// func gpsi32AVX(x []float32, sc float64, nu, a, ab []float64) float64
// Σ(ν·x·sc·a·ab)²
TEXT ·gpsi32AVX(SB), NOSPLIT, $0-112
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         nu_base+32(FP), R8
	MOVQ         a_base+56(FP), R9
	MOVQ         ab_base+80(FP), R10
	VBROADCASTSD sc+24(FP), Y15
	VXORPD       Y8, Y8, Y8
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           gpdone

gploop:
	VCVTPS2PD (SI)(AX*4), Y0
	VMULPD    (R8)(AX*8), Y0, Y0
	VMULPD    Y15, Y0, Y0
	VMULPD    (R9)(AX*8), Y0, Y0
	VMULPD      (R10)(AX*8), Y0, Y0
	VFMADD231PD Y0, Y0, Y8
	ADDQ        $4, AX
	CMPQ      AX, CX
	JB        gploop

gpdone:
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VZEROUPPER
	MOVSD        X8, ret+104(FP)
	RET

// func tapDevRow32AVX(x []float32, m int, mu float64, gs, mean, vs []float64) float64
// statTaps' second pass over one row of len(gs) groups of m features (m a
// multiple of 16), fused: returns Σ(x-μ)² and adds (x·gs - mean)² to vs.
TEXT ·tapDevRow32AVX(SB), NOSPLIT, $0-120
	MOVQ         x_base+0(FP), SI
	MOVQ         m+24(FP), R13
	VBROADCASTSD mu+32(FP), Y14
	MOVQ         gs_base+40(FP), R12
	MOVQ         gs_len+48(FP), R11
	MOVQ         mean_base+64(FP), R9
	MOVQ         vs_base+88(FP), R10
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	XORQ         AX, AX
	TESTQ        R11, R11
	JZ           tdvdone

tdvgroup:
	VBROADCASTSD (R12), Y15
	ADDQ         $8, R12
	MOVQ         R13, CX
	SHRQ         $3, CX

tdvloop:
	VCVTPS2PD   (SI)(AX*4), Y0
	VSUBPD      Y14, Y0, Y1
	VFMADD231PD Y1, Y1, Y8
	VMULPD      Y15, Y0, Y0
	VSUBPD      (R9)(AX*8), Y0, Y0
	VMOVUPD     (R10)(AX*8), Y1
	VFMADD231PD Y0, Y0, Y1
	VMOVUPD     Y1, (R10)(AX*8)
	VCVTPS2PD   16(SI)(AX*4), Y2
	VSUBPD      Y14, Y2, Y3
	VFMADD231PD Y3, Y3, Y9
	VMULPD      Y15, Y2, Y2
	VSUBPD      32(R9)(AX*8), Y2, Y2
	VMOVUPD     32(R10)(AX*8), Y3
	VFMADD231PD Y2, Y2, Y3
	VMOVUPD     Y3, 32(R10)(AX*8)
	ADDQ        $8, AX
	DECQ        CX
	JNZ         tdvloop

	DECQ R11
	JNZ  tdvgroup

tdvdone:
	VADDPD       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VZEROUPPER
	MOVSD        X8, ret+112(FP)
	RET

// func tapAccumRow32AVX(x []float32, m int, gs, mean, psi []float64) (sum, maxAbs float64)
// tapAccum32AVX over one row of len(gs) groups of m features (m a multiple
// of 16), scale gs per group.
TEXT ·tapAccumRow32AVX(SB), NOSPLIT, $0-120
	MOVQ         x_base+0(FP), SI
	MOVQ         m+24(FP), R13
	MOVQ         gs_base+32(FP), R12
	MOVQ         gs_len+40(FP), R11
	MOVQ         mean_base+56(FP), R9
	MOVQ         psi_base+80(FP), R10
	VBROADCASTSD absmask<>(SB), Y13
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	XORQ         AX, AX
	TESTQ        R11, R11
	JZ           tarowdone

targroup:
	VBROADCASTSD (R12), Y15
	ADDQ         $8, R12
	MOVQ         R13, CX
	SHRQ         $2, CX

tarloop:
	VCVTPS2PD   (SI)(AX*4), Y0
	VADDPD      Y0, Y8, Y8
	VANDPD      Y13, Y0, Y1
	VMAXPD      Y1, Y9, Y9
	VMULPD      Y15, Y0, Y0
	VADDPD      (R9)(AX*8), Y0, Y3
	VMOVUPD     Y3, (R9)(AX*8)
	VMOVUPD     (R10)(AX*8), Y2
	VFMADD231PD Y0, Y0, Y2
	VMOVUPD     Y2, (R10)(AX*8)
	ADDQ        $4, AX
	DECQ        CX
	JNZ         tarloop

	DECQ R11
	JNZ  targroup

tarowdone:
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VEXTRACTF128 $1, Y9, X1
	VMAXPD       X1, X9, X9
	VUNPCKHPD    X9, X9, X1
	VMAXSD       X1, X9, X9
	VZEROUPPER
	MOVSD        X8, sum+104(FP)
	MOVSD        X9, maxAbs+112(FP)
	RET

// func gpsiRow32AVX(x []float32, m int, gs, w []float64) float64
// Σ over the row's groups of Σ(x·gs·w)² (m a multiple of 16): PowerNorm's
// g_ψ² tap with w = ν⊙a⊙ab, one call per row.
TEXT ·gpsiRow32AVX(SB), NOSPLIT, $0-88
	MOVQ   x_base+0(FP), SI
	MOVQ   m+24(FP), R13
	MOVQ   gs_base+32(FP), R12
	MOVQ   gs_len+40(FP), R11
	MOVQ   w_base+56(FP), R8
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	XORQ   AX, AX
	TESTQ  R11, R11
	JZ     gprdone

gprgroup:
	VBROADCASTSD (R12), Y15
	ADDQ         $8, R12
	MOVQ         R13, CX
	SHRQ         $3, CX

gprloop:
	VCVTPS2PD   (SI)(AX*4), Y0
	VCVTPS2PD   16(SI)(AX*4), Y1
	VMULPD      Y15, Y0, Y0
	VMULPD      Y15, Y1, Y1
	VMULPD      (R8)(AX*8), Y0, Y0
	VMULPD      32(R8)(AX*8), Y1, Y1
	VFMADD231PD Y0, Y0, Y8
	VFMADD231PD Y1, Y1, Y9
	ADDQ        $8, AX
	DECQ        CX
	JNZ         gprloop

	DECQ R11
	JNZ  gprgroup

gprdone:
	VADDPD       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VZEROUPPER
	MOVSD        X8, ret+80(FP)
	RET
