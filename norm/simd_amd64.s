//go:build amd64 && !purego

#include "textflag.h"

// AVX kernels for the float32 hot loops. Each converts float32 to float64
// four lanes at a time and does the float64 operations of the Go loop it
// replaces. Reductions differ from the Go loops in summation order; where a
// kernel uses FMA (fused multiply-add: one rounding instead of two, and the
// add moves off the saturated add pipes) its results differ from the Go
// loop in the last bit; kernels without FMA are bit-identical element-wise.
// Every kernel requires len(x) to be a multiple of 16 (the Go wrappers in
// simd_amd64.go run the rest); the other slices are at least as long as x.
// The row sums Σx and Σ(x−μ)², which nn uses too, are internal/simd's.

// func lnWrite32AVX(x []float32, gam, bet []float64, mu, a float64, y []float32)
// y = float32(γ·((x-μ)·a) + β)
TEXT ·lnWrite32AVX(SB), NOSPLIT, $0-112
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         gam_base+24(FP), DX
	MOVQ         bet_base+48(FP), R8
	MOVQ         y_base+88(FP), DI
	VBROADCASTSD mu+72(FP), Y14
	VBROADCASTSD a+80(FP), Y15
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           lnwdone

lnwloop:
	VCVTPS2PD   (SI)(AX*4), Y0
	VSUBPD      Y14, Y0, Y0
	VMULPD      Y15, Y0, Y0
	VMOVUPD     (DX)(AX*8), Y1
	VFMADD213PD (R8)(AX*8), Y1, Y0
	VCVTPD2PSY  Y0, X0
	VMOVUPS    X0, (DI)(AX*4)
	ADDQ       $4, AX
	CMPQ       AX, CX
	JB         lnwloop

lnwdone:
	VZEROUPPER
	RET

// func gradSumsAffine32AVX(x, g []float32, gam []float64, mu, a float64, dgam, dbet []float64) (sg, sgx float64)
// x̂ = (x-μ)·a; dγ += g·x̂; dβ += g; Σ γg; Σ γg·x̂
TEXT ·gradSumsAffine32AVX(SB), NOSPLIT, $0-152
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         g_base+24(FP), BX
	MOVQ         gam_base+48(FP), DX
	MOVQ         dgam_base+88(FP), R9
	MOVQ         dbet_base+112(FP), R10
	VBROADCASTSD mu+72(FP), Y14
	VBROADCASTSD a+80(FP), Y15
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	VXORPD       Y10, Y10, Y10
	VXORPD       Y11, Y11, Y11
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           gsadone

gsaloop:
	VCVTPS2PD   (SI)(AX*4), Y0
	VSUBPD      Y14, Y0, Y0
	VMULPD      Y15, Y0, Y0
	VCVTPS2PD   (BX)(AX*4), Y1
	VMOVUPD     (R9)(AX*8), Y2
	VFMADD231PD Y0, Y1, Y2
	VMOVUPD     Y2, (R9)(AX*8)
	VADDPD      (R10)(AX*8), Y1, Y3
	VMOVUPD     Y3, (R10)(AX*8)
	VMULPD      (DX)(AX*8), Y1, Y1
	VADDPD      Y1, Y8, Y8
	VFMADD231PD Y0, Y1, Y9

	VCVTPS2PD   16(SI)(AX*4), Y4
	VSUBPD      Y14, Y4, Y4
	VMULPD      Y15, Y4, Y4
	VCVTPS2PD   16(BX)(AX*4), Y5
	VMOVUPD     32(R9)(AX*8), Y6
	VFMADD231PD Y4, Y5, Y6
	VMOVUPD     Y6, 32(R9)(AX*8)
	VADDPD      32(R10)(AX*8), Y5, Y7
	VMOVUPD     Y7, 32(R10)(AX*8)
	VMULPD      32(DX)(AX*8), Y5, Y5
	VADDPD      Y5, Y10, Y10
	VFMADD231PD Y4, Y5, Y11

	ADDQ $8, AX
	CMPQ AX, CX
	JB   gsaloop

gsadone:
	VADDPD       Y10, Y8, Y8
	VADDPD       Y11, Y9, Y9
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VEXTRACTF128 $1, Y9, X1
	VADDPD       X1, X9, X9
	VUNPCKHPD    X9, X9, X1
	VADDSD       X1, X9, X9
	VZEROUPPER
	MOVSD        X8, sg+136(FP)
	MOVSD        X9, sgx+144(FP)
	RET

// func lnDx32AVX(x, g []float32, gam []float64, mu, a, mg, bc float64, dx []float32)
// dx = float32(a·(γg - mg) - bc·(x-μ))
TEXT ·lnDx32AVX(SB), NOSPLIT, $0-128
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         g_base+24(FP), BX
	MOVQ         gam_base+48(FP), DX
	MOVQ         dx_base+104(FP), DI
	VBROADCASTSD mu+72(FP), Y14
	VBROADCASTSD a+80(FP), Y15
	VBROADCASTSD mg+88(FP), Y13
	VBROADCASTSD bc+96(FP), Y12
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           lndxdone

lndxloop:
	VCVTPS2PD   (BX)(AX*4), Y0
	VMULPD      (DX)(AX*8), Y0, Y0
	VSUBPD      Y13, Y0, Y0
	VCVTPS2PD   (SI)(AX*4), Y1
	VSUBPD      Y14, Y1, Y1
	VMULPD      Y12, Y1, Y1
	VFMSUB231PD Y15, Y0, Y1
	VCVTPD2PSY  Y1, X0
	VMOVUPS    X0, (DI)(AX*4)
	ADDQ       $4, AX
	CMPQ       AX, CX
	JB         lndxloop

lndxdone:
	VZEROUPPER
	RET

// func colWrite32AVX(x []float32, sc float64, mu, a, gam, bet []float64, y []float32)
// y = float32(γ·((x·sc - μ)·a) + β), the per-feature output pass
// (BatchNorm, PN-V, PowerNorm in warmup), γ·t + β fused.
TEXT ·colWrite32AVX(SB), NOSPLIT, $0-152
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSD sc+24(FP), Y15
	MOVQ         mu_base+32(FP), R9
	MOVQ         a_base+56(FP), R10
	MOVQ         gam_base+80(FP), DX
	MOVQ         bet_base+104(FP), R8
	MOVQ         y_base+128(FP), DI
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           cwdone

cwloop:
	VCVTPS2PD   (SI)(AX*4), Y0
	VMULPD      Y15, Y0, Y0
	VSUBPD      (R9)(AX*8), Y0, Y0
	VMULPD      (R10)(AX*8), Y0, Y0
	VMOVUPD     (DX)(AX*8), Y1
	VFMADD213PD (R8)(AX*8), Y1, Y0
	VCVTPD2PSY  Y0, X0
	VMOVUPS     X0, (DI)(AX*4)
	ADDQ        $4, AX
	CMPQ        AX, CX
	JB          cwloop

cwdone:
	VZEROUPPER
	RET

// func moments2_32AVX(a, b []float32, fn float64) (ma, sa, mb, sb float64)
// Two rows' means (Σ/fn) and sums of squared deviations from them, two
// passes each, both rows per pass (len(a) = len(b), a multiple of 16).
TEXT ·moments2_32AVX(SB), NOSPLIT, $0-88
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), DX
	MOVQ   b_base+24(FP), BX
	MOVSD  fn+48(FP), X13
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	XORQ   AX, AX
	TESTQ  DX, DX
	JZ     m2done

m2sum:
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y1
	VCVTPS2PD (BX)(AX*4), Y2
	VCVTPS2PD 16(BX)(AX*4), Y3
	VADDPD    Y0, Y8, Y8
	VADDPD    Y1, Y9, Y9
	VADDPD    Y2, Y10, Y10
	VADDPD    Y3, Y11, Y11
	ADDQ      $8, AX
	CMPQ      AX, DX
	JB        m2sum

	VADDPD       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VDIVSD       X13, X8, X8
	VMOVSD       X8, ma+56(FP)
	VADDPD       Y11, Y10, Y10
	VEXTRACTF128 $1, Y10, X0
	VADDPD       X0, X10, X10
	VUNPCKHPD    X10, X10, X0
	VADDSD       X0, X10, X10
	VDIVSD       X13, X10, X10
	VMOVSD       X10, mb+72(FP)
	VBROADCASTSD ma+56(FP), Y14
	VBROADCASTSD mb+72(FP), Y15
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	VXORPD       Y10, Y10, Y10
	VXORPD       Y11, Y11, Y11
	XORQ         AX, AX

m2dev:
	VCVTPS2PD   (SI)(AX*4), Y0
	VCVTPS2PD   16(SI)(AX*4), Y1
	VCVTPS2PD   (BX)(AX*4), Y2
	VCVTPS2PD   16(BX)(AX*4), Y3
	VSUBPD      Y14, Y0, Y0
	VSUBPD      Y14, Y1, Y1
	VSUBPD      Y15, Y2, Y2
	VSUBPD      Y15, Y3, Y3
	VFMADD231PD Y0, Y0, Y8
	VFMADD231PD Y1, Y1, Y9
	VFMADD231PD Y2, Y2, Y10
	VFMADD231PD Y3, Y3, Y11
	ADDQ        $8, AX
	CMPQ        AX, DX
	JB          m2dev

	VADDPD       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VMOVSD       X8, sa+64(FP)
	VADDPD       Y11, Y10, Y10
	VEXTRACTF128 $1, Y10, X0
	VADDPD       X0, X10, X10
	VUNPCKHPD    X10, X10, X0
	VADDSD       X0, X10, X10
	VMOVSD       X10, sb+80(FP)
	VZEROUPPER
	RET

m2done:
	VZEROUPPER
	MOVQ $0, ma+56(FP)
	MOVQ $0, sa+64(FP)
	MOVQ $0, mb+72(FP)
	MOVQ $0, sb+80(FP)
	RET
