//go:build amd64 && !purego

#include "textflag.h"

// Whole-matrix kernels of the per-feature family (kernel_col.go) for
// float32 x of n rows × d features, d a multiple of 4: one call per pass
// over the batch instead of one per row. At the resnet's 8 channels a row
// is 8 values, and the per-row call and loop set-up cost more than its
// arithmetic. Each kernel does, per element, exactly the float64
// operations of the Go loop it replaces, in the same order and without
// FMA, so it gives the Go loop's bits; the per-feature sums add the rows
// in row order, as the Go loops do. len(x) must be a multiple of d and of
// 4, d > 0; the per-feature slices hold at least d values.

// func colAccumMat32(x []float32, d int, s1, s2 []float64)
// s1 += x, s2 += x² per feature (colAccum with sc = 1).
TEXT ·colAccumMat32(SB), NOSPLIT, $0-80
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ d+24(FP), BX
	MOVQ s1_base+32(FP), R8
	MOVQ s2_base+56(FP), R9
	XORQ AX, AX
	TESTQ CX, CX
	JZ   cadone

carow:
	XORQ DX, DX

caloop:
	VCVTPS2PD (SI)(AX*4), Y0
	VADDPD    (R8)(DX*8), Y0, Y1
	VMOVUPD   Y1, (R8)(DX*8)
	VMULPD    Y0, Y0, Y2
	VADDPD    (R9)(DX*8), Y2, Y2
	VMOVUPD   Y2, (R9)(DX*8)
	ADDQ      $4, AX
	ADDQ      $4, DX
	CMPQ      DX, BX
	JB        caloop
	CMPQ      AX, CX
	JB        carow

cadone:
	VZEROUPPER
	RET

// func colAccumDevMat32(x []float32, d int, mean, vs []float64)
// vs += (x - mean)² per feature (colAccumDev with sc = 1).
TEXT ·colAccumDevMat32(SB), NOSPLIT, $0-80
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ d+24(FP), BX
	MOVQ mean_base+32(FP), R8
	MOVQ vs_base+56(FP), R9
	XORQ AX, AX
	TESTQ CX, CX
	JZ   cvdone

cvrow:
	XORQ DX, DX

cvloop:
	VCVTPS2PD (SI)(AX*4), Y0
	VSUBPD    (R8)(DX*8), Y0, Y0
	VMULPD    Y0, Y0, Y0
	VADDPD    (R9)(DX*8), Y0, Y0
	VMOVUPD   Y0, (R9)(DX*8)
	ADDQ      $4, AX
	ADDQ      $4, DX
	CMPQ      DX, BX
	JB        cvloop
	CMPQ      AX, CX
	JB        cvrow

cvdone:
	VZEROUPPER
	RET

// func colWriteMat32(x []float32, d int, mu, a, gam, bet []float64, y []float32)
// y = float32(γ·((x - μ)·a) + β) (colWrite with sc = 1).
TEXT ·colWriteMat32(SB), NOSPLIT, $0-152
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ d+24(FP), BX
	MOVQ mu_base+32(FP), R8
	MOVQ a_base+56(FP), R9
	MOVQ gam_base+80(FP), R10
	MOVQ bet_base+104(FP), R11
	MOVQ y_base+128(FP), DI
	XORQ AX, AX
	TESTQ CX, CX
	JZ   cwmdone

cwmrow:
	XORQ DX, DX

cwmloop:
	VCVTPS2PD  (SI)(AX*4), Y0
	VSUBPD     (R8)(DX*8), Y0, Y0
	VMULPD     (R9)(DX*8), Y0, Y0
	VMULPD     (R10)(DX*8), Y0, Y0
	VADDPD     (R11)(DX*8), Y0, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS    X0, (DI)(AX*4)
	ADDQ       $4, AX
	ADDQ       $4, DX
	CMPQ       DX, BX
	JB         cwmloop
	CMPQ       AX, CX
	JB         cwmrow

cwmdone:
	VZEROUPPER
	RET

// func colParamGradsMat32(x, g []float32, d int, mu, a, dgam, dbet []float64)
// dγ += g·x̂ and dβ += g per feature, x̂ = (x - μ)·a (colParamGrads with
// sc = 1).
TEXT ·colParamGradsMat32(SB), NOSPLIT, $0-152
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ g_base+24(FP), DI
	MOVQ d+48(FP), BX
	MOVQ mu_base+56(FP), R8
	MOVQ a_base+80(FP), R9
	MOVQ dgam_base+104(FP), R10
	MOVQ dbet_base+128(FP), R11
	XORQ AX, AX
	TESTQ CX, CX
	JZ   cpdone

cprow:
	XORQ DX, DX

cploop:
	VCVTPS2PD (SI)(AX*4), Y0
	VSUBPD    (R8)(DX*8), Y0, Y0
	VMULPD    (R9)(DX*8), Y0, Y0
	VCVTPS2PD (DI)(AX*4), Y1
	VMULPD    Y0, Y1, Y2
	VADDPD    (R10)(DX*8), Y2, Y2
	VMOVUPD   Y2, (R10)(DX*8)
	VADDPD    (R11)(DX*8), Y1, Y3
	VMOVUPD   Y3, (R11)(DX*8)
	ADDQ      $4, AX
	ADDQ      $4, DX
	CMPQ      DX, BX
	JB        cploop
	CMPQ      AX, CX
	JB        cprow

cpdone:
	VZEROUPPER
	RET

// func colGradOutMat32(x, g []float32, d int, gam, mu, a, cmu, cvar []float64, dx []float32, gv []float64)
// dx = float32(γ·g·a + g_μ - x̂·cvar) with x̂ = (x - μ)·a (colGradOut then
// gsBackRow without GroupScaling); where len(gv) > 0, gv[i] = Σ over row
// i of (x̂·cvar)², added in feature order as colGradOut adds it.
TEXT ·colGradOutMat32(SB), NOSPLIT, $0-224
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ g_base+24(FP), BX
	MOVQ gam_base+56(FP), R8
	MOVQ mu_base+80(FP), R9
	MOVQ a_base+104(FP), R10
	MOVQ cmu_base+128(FP), R11
	MOVQ cvar_base+152(FP), R12
	MOVQ dx_base+176(FP), DI
	MOVQ gv_base+200(FP), R13
	XORQ AX, AX
	TESTQ CX, CX
	JZ   cgdone

cgrow:
	XORQ   DX, DX
	VXORPD X7, X7, X7

cgloop:
	VCVTPS2PD  (SI)(AX*4), Y0
	VSUBPD     (R9)(DX*8), Y0, Y0
	VMULPD     (R10)(DX*8), Y0, Y0
	VMULPD     (R12)(DX*8), Y0, Y0
	VCVTPS2PD  (BX)(AX*4), Y1
	VMULPD     (R8)(DX*8), Y1, Y1
	VMULPD     (R10)(DX*8), Y1, Y1
	VADDPD     (R11)(DX*8), Y1, Y1
	VSUBPD     Y0, Y1, Y1
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, (DI)(AX*4)
	CMPQ       gv_len+208(FP), $0
	JEQ        cgnext
	VMULPD     Y0, Y0, Y2
	VADDSD     X2, X7, X7
	VPERMILPD  $1, X2, X3
	VADDSD     X3, X7, X7
	VEXTRACTF128 $1, Y2, X4
	VADDSD     X4, X7, X7
	VPERMILPD  $1, X4, X5
	VADDSD     X5, X7, X7

cgnext:
	ADDQ $4, AX
	ADDQ $4, DX
	CMPQ DX, d+48(FP)
	JB   cgloop
	CMPQ gv_len+208(FP), $0
	JEQ  cgrowend
	VMOVSD X7, (R13)
	ADDQ   $8, R13

cgrowend:
	CMPQ AX, CX
	JB   cgrow

cgdone:
	VZEROUPPER
	RET
