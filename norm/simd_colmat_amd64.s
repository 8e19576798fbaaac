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
	CMPQ BX, $8
	JEQ  ca8

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

	VZEROUPPER
	RET

// d = 8: the sums stay in registers from row to row, not a load and a
// store per row whose store-to-load latency every next row waited on.
ca8:
	VMOVUPD (R8), Y8
	VMOVUPD 32(R8), Y9
	VMOVUPD (R9), Y10
	VMOVUPD 32(R9), Y11

ca8loop:
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y1
	VADDPD    Y8, Y0, Y8
	VADDPD    Y9, Y1, Y9
	VMULPD    Y0, Y0, Y2
	VADDPD    Y10, Y2, Y10
	VMULPD    Y1, Y1, Y3
	VADDPD    Y11, Y3, Y11
	ADDQ      $8, AX
	CMPQ      AX, CX
	JB        ca8loop
	VMOVUPD   Y8, (R8)
	VMOVUPD   Y9, 32(R8)
	VMOVUPD   Y10, (R9)
	VMOVUPD   Y11, 32(R9)

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
	CMPQ BX, $8
	JEQ  cv8

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

	VZEROUPPER
	RET

// d = 8: the means and sums in registers (as ca8).
cv8:
	VMOVUPD (R8), Y12
	VMOVUPD 32(R8), Y13
	VMOVUPD (R9), Y10
	VMOVUPD 32(R9), Y11

cv8loop:
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y1
	VSUBPD    Y12, Y0, Y0
	VSUBPD    Y13, Y1, Y1
	VMULPD    Y0, Y0, Y0
	VMULPD    Y1, Y1, Y1
	VADDPD    Y10, Y0, Y10
	VADDPD    Y11, Y1, Y11
	ADDQ      $8, AX
	CMPQ      AX, CX
	JB        cv8loop
	VMOVUPD   Y10, (R9)
	VMOVUPD   Y11, 32(R9)

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
	CMPQ BX, $8
	JEQ  cp8

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

	VZEROUPPER
	RET

// d = 8: μ, a and the sums in registers (as ca8).
cp8:
	VMOVUPD (R8), Y12
	VMOVUPD 32(R8), Y13
	VMOVUPD (R9), Y14
	VMOVUPD 32(R9), Y15
	VMOVUPD (R10), Y8
	VMOVUPD 32(R10), Y9
	VMOVUPD (R11), Y10
	VMOVUPD 32(R11), Y11

cp8loop:
	VCVTPS2PD (SI)(AX*4), Y0
	VSUBPD    Y12, Y0, Y0
	VMULPD    Y14, Y0, Y0
	VCVTPS2PD (DI)(AX*4), Y1
	VMULPD    Y0, Y1, Y2
	VADDPD    Y8, Y2, Y8
	VADDPD    Y10, Y1, Y10
	VCVTPS2PD 16(SI)(AX*4), Y4
	VSUBPD    Y13, Y4, Y4
	VMULPD    Y15, Y4, Y4
	VCVTPS2PD 16(DI)(AX*4), Y5
	VMULPD    Y4, Y5, Y6
	VADDPD    Y9, Y6, Y9
	VADDPD    Y11, Y5, Y11
	ADDQ      $8, AX
	CMPQ      AX, CX
	JB        cp8loop
	VMOVUPD   Y8, (R10)
	VMOVUPD   Y9, 32(R10)
	VMOVUPD   Y10, (R11)
	VMOVUPD   Y11, 32(R11)

cpdone:
	VZEROUPPER
	RET

// TRANSPOSE4(r0, r1, r2, r3, t0, t1, t2, t3) transposes the 4×4 doubles in
// r0-r3 (row i, lane j → row j, lane i); t0-t3 are scratch.
#define TRANSPOSE4(r0, r1, r2, r3, t0, t1, t2, t3) \
	VUNPCKLPD  r1, r0, t0 \
	VUNPCKHPD  r1, r0, t1 \
	VUNPCKLPD  r3, r2, t2 \
	VUNPCKHPD  r3, r2, t3 \
	VPERM2F128 $0x20, t2, t0, r0 \
	VPERM2F128 $0x20, t3, t1, r1 \
	VPERM2F128 $0x31, t2, t0, r2 \
	VPERM2F128 $0x31, t3, t1, r3

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
	CMPQ d+48(FP), $8
	JNE  cgrow1
	CMPQ gv_len+208(FP), $0
	JEQ  cgrow1
	LEAQ 32(AX), DX
	CMPQ DX, CX
	JA   cgrow1

	// d = 8 with the per-row sums, four rows at a time: dx as below; the
	// rows' squared terms transposed so that each add of lanes adds the
	// next feature's term to four rows' sums, in feature order, as the
	// row loop adds them one by one.
	VXORPD Y7, Y7, Y7
	VCVTPS2PD  0(SI)(AX*4), Y0
	VSUBPD     0(R9), Y0, Y0
	VMULPD     0(R10), Y0, Y0
	VMULPD     0(R12), Y0, Y0
	VCVTPS2PD  0(BX)(AX*4), Y1
	VMULPD     0(R8), Y1, Y1
	VMULPD     0(R10), Y1, Y1
	VADDPD     0(R11), Y1, Y1
	VSUBPD     Y0, Y1, Y1
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, 0(DI)(AX*4)
	VMULPD     Y0, Y0, Y8
	VCVTPS2PD  32(SI)(AX*4), Y0
	VSUBPD     0(R9), Y0, Y0
	VMULPD     0(R10), Y0, Y0
	VMULPD     0(R12), Y0, Y0
	VCVTPS2PD  32(BX)(AX*4), Y1
	VMULPD     0(R8), Y1, Y1
	VMULPD     0(R10), Y1, Y1
	VADDPD     0(R11), Y1, Y1
	VSUBPD     Y0, Y1, Y1
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, 32(DI)(AX*4)
	VMULPD     Y0, Y0, Y9
	VCVTPS2PD  64(SI)(AX*4), Y0
	VSUBPD     0(R9), Y0, Y0
	VMULPD     0(R10), Y0, Y0
	VMULPD     0(R12), Y0, Y0
	VCVTPS2PD  64(BX)(AX*4), Y1
	VMULPD     0(R8), Y1, Y1
	VMULPD     0(R10), Y1, Y1
	VADDPD     0(R11), Y1, Y1
	VSUBPD     Y0, Y1, Y1
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, 64(DI)(AX*4)
	VMULPD     Y0, Y0, Y10
	VCVTPS2PD  96(SI)(AX*4), Y0
	VSUBPD     0(R9), Y0, Y0
	VMULPD     0(R10), Y0, Y0
	VMULPD     0(R12), Y0, Y0
	VCVTPS2PD  96(BX)(AX*4), Y1
	VMULPD     0(R8), Y1, Y1
	VMULPD     0(R10), Y1, Y1
	VADDPD     0(R11), Y1, Y1
	VSUBPD     Y0, Y1, Y1
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, 96(DI)(AX*4)
	VMULPD     Y0, Y0, Y11
	TRANSPOSE4(Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	VADDPD     Y8, Y7, Y7
	VADDPD     Y9, Y7, Y7
	VADDPD     Y10, Y7, Y7
	VADDPD     Y11, Y7, Y7
	VCVTPS2PD  16(SI)(AX*4), Y0
	VSUBPD     32(R9), Y0, Y0
	VMULPD     32(R10), Y0, Y0
	VMULPD     32(R12), Y0, Y0
	VCVTPS2PD  16(BX)(AX*4), Y1
	VMULPD     32(R8), Y1, Y1
	VMULPD     32(R10), Y1, Y1
	VADDPD     32(R11), Y1, Y1
	VSUBPD     Y0, Y1, Y1
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, 16(DI)(AX*4)
	VMULPD     Y0, Y0, Y8
	VCVTPS2PD  48(SI)(AX*4), Y0
	VSUBPD     32(R9), Y0, Y0
	VMULPD     32(R10), Y0, Y0
	VMULPD     32(R12), Y0, Y0
	VCVTPS2PD  48(BX)(AX*4), Y1
	VMULPD     32(R8), Y1, Y1
	VMULPD     32(R10), Y1, Y1
	VADDPD     32(R11), Y1, Y1
	VSUBPD     Y0, Y1, Y1
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, 48(DI)(AX*4)
	VMULPD     Y0, Y0, Y9
	VCVTPS2PD  80(SI)(AX*4), Y0
	VSUBPD     32(R9), Y0, Y0
	VMULPD     32(R10), Y0, Y0
	VMULPD     32(R12), Y0, Y0
	VCVTPS2PD  80(BX)(AX*4), Y1
	VMULPD     32(R8), Y1, Y1
	VMULPD     32(R10), Y1, Y1
	VADDPD     32(R11), Y1, Y1
	VSUBPD     Y0, Y1, Y1
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, 80(DI)(AX*4)
	VMULPD     Y0, Y0, Y10
	VCVTPS2PD  112(SI)(AX*4), Y0
	VSUBPD     32(R9), Y0, Y0
	VMULPD     32(R10), Y0, Y0
	VMULPD     32(R12), Y0, Y0
	VCVTPS2PD  112(BX)(AX*4), Y1
	VMULPD     32(R8), Y1, Y1
	VMULPD     32(R10), Y1, Y1
	VADDPD     32(R11), Y1, Y1
	VSUBPD     Y0, Y1, Y1
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, 112(DI)(AX*4)
	VMULPD     Y0, Y0, Y11
	TRANSPOSE4(Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	VADDPD     Y8, Y7, Y7
	VADDPD     Y9, Y7, Y7
	VADDPD     Y10, Y7, Y7
	VADDPD     Y11, Y7, Y7
	VMOVUPD Y7, (R13)
	ADDQ    $32, R13
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      cgrow
	JMP     cgdone

cgrow1:
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

// The probes' passes (the Stats and Theorem-1 taps) over plain rows of d
// features, d a multiple of 4: each row's sums in the Go loops' order.

DATA colmatabs<>+0(SB)/8, $0x7fffffffffffffff
GLOBL colmatabs<>(SB), RODATA|NOPTR, $8

// HSUM4(y, x, hi, t) sets x's low lane to (y₀ + y₁) + (y₂ + y₃),
// sumOf's and sumSqDev's order for their four lane sums; x is y's low
// half, hi and t are scratch.
#define HSUM4(y, x, hi, t) \
	VEXTRACTF128 $1, y, hi \
	VHADDPD      hi, x, t \
	VUNPCKHPD    t, t, hi \
	VADDSD       hi, t, x

// func tapAccumMat32(x []float32, d int, mean, psi []float64) (sum, maxAbs float64)
// mean += x, psi += x² per feature; sum = Σ over rows of the row's sum
// taken element by element, as tapAccum and statTapSums add them; maxAbs
// = max|x| (meaningless when x holds a NaN: then sum is NaN and the caller
// rescans).
TEXT ·tapAccumMat32(SB), NOSPLIT, $0-96
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         d+24(FP), BX
	MOVQ         mean_base+32(FP), R8
	MOVQ         psi_base+56(FP), R9
	VBROADCASTSD colmatabs<>(SB), Y13
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           tadone
	CMPQ         BX, $8
	JEQ          ta8

tarow:
	XORQ   DX, DX
	VXORPD X7, X7, X7

taloop:
	VCVTPS2PD    (SI)(AX*4), Y0
	VADDSD       X0, X7, X7
	VPERMILPD    $1, X0, X3
	VADDSD       X3, X7, X7
	VEXTRACTF128 $1, Y0, X4
	VADDSD       X4, X7, X7
	VPERMILPD    $1, X4, X5
	VADDSD       X5, X7, X7
	VANDPD       Y13, Y0, Y1
	VMAXPD       Y1, Y9, Y9
	VADDPD       (R8)(DX*8), Y0, Y2
	VMOVUPD      Y2, (R8)(DX*8)
	VMULPD       Y0, Y0, Y2
	VADDPD       (R9)(DX*8), Y2, Y2
	VMOVUPD      Y2, (R9)(DX*8)
	ADDQ         $4, AX
	ADDQ         $4, DX
	CMPQ         DX, BX
	JB           taloop
	VADDSD       X7, X8, X8
	CMPQ         AX, CX
	JB           tarow

	JMP tadone

// d = 8: mean and psi in registers (as ca8); each row's sum as above.
ta8:
	VMOVUPD (R8), Y10
	VMOVUPD 32(R8), Y11
	VMOVUPD (R9), Y12
	VMOVUPD 32(R9), Y14

ta8row:
	VXORPD       X7, X7, X7
	VCVTPS2PD    (SI)(AX*4), Y0
	VADDSD       X0, X7, X7
	VPERMILPD    $1, X0, X3
	VADDSD       X3, X7, X7
	VEXTRACTF128 $1, Y0, X4
	VADDSD       X4, X7, X7
	VPERMILPD    $1, X4, X5
	VADDSD       X5, X7, X7
	VANDPD       Y13, Y0, Y1
	VMAXPD       Y1, Y9, Y9
	VADDPD       Y10, Y0, Y10
	VMULPD       Y0, Y0, Y2
	VADDPD       Y12, Y2, Y12
	VCVTPS2PD    16(SI)(AX*4), Y0
	VADDSD       X0, X7, X7
	VPERMILPD    $1, X0, X3
	VADDSD       X3, X7, X7
	VEXTRACTF128 $1, Y0, X4
	VADDSD       X4, X7, X7
	VPERMILPD    $1, X4, X5
	VADDSD       X5, X7, X7
	VANDPD       Y13, Y0, Y1
	VMAXPD       Y1, Y9, Y9
	VADDPD       Y11, Y0, Y11
	VMULPD       Y0, Y0, Y2
	VADDPD       Y14, Y2, Y14
	VADDSD       X7, X8, X8
	ADDQ         $8, AX
	CMPQ         AX, CX
	JB           ta8row
	VMOVUPD      Y10, (R8)
	VMOVUPD      Y11, 32(R8)
	VMOVUPD      Y12, (R9)
	VMOVUPD      Y14, 32(R9)

tadone:
	VEXTRACTF128 $1, Y9, X1
	VMAXPD       X1, X9, X9
	VUNPCKHPD    X9, X9, X1
	VMAXSD       X1, X9, X9
	VZEROUPPER
	MOVSD        X8, sum+80(FP)
	MOVSD        X9, maxAbs+88(FP)
	RET

// func tapDevMat32(x []float32, d int, mu float64, mean, vs []float64) (ss float64)
// vs += (x - mean)² per feature (colAccumDev with sc = 1); ss = Σ over
// rows of sumSqDev(row, mu), in row order.
TEXT ·tapDevMat32(SB), NOSPLIT, $0-96
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         d+24(FP), BX
	VBROADCASTSD mu+32(FP), Y15
	MOVQ         mean_base+40(FP), R8
	MOVQ         vs_base+64(FP), R9
	VXORPD       X8, X8, X8
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           tddone
	CMPQ         BX, $8
	JEQ          td8

tdrow:
	XORQ   DX, DX
	VXORPD Y6, Y6, Y6

tdloop:
	VCVTPS2PD (SI)(AX*4), Y0
	VSUBPD    Y15, Y0, Y1
	VMULPD    Y1, Y1, Y1
	VADDPD    Y1, Y6, Y6
	VSUBPD    (R8)(DX*8), Y0, Y2
	VMULPD    Y2, Y2, Y2
	VADDPD    (R9)(DX*8), Y2, Y2
	VMOVUPD   Y2, (R9)(DX*8)
	ADDQ      $4, AX
	ADDQ      $4, DX
	CMPQ      DX, BX
	JB        tdloop
	HSUM4(Y6, X6, X4, X5)
	VADDSD    X6, X8, X8
	CMPQ      AX, CX
	JB        tdrow

	JMP tddone

// d = 8: the means and sums in registers (as ca8); each row's ss as above.
td8:
	VMOVUPD (R8), Y10
	VMOVUPD 32(R8), Y11
	VMOVUPD (R9), Y12
	VMOVUPD 32(R9), Y14

td8row:
	VXORPD    Y6, Y6, Y6
	VCVTPS2PD (SI)(AX*4), Y0
	VSUBPD    Y15, Y0, Y1
	VMULPD    Y1, Y1, Y1
	VADDPD    Y1, Y6, Y6
	VSUBPD    Y10, Y0, Y2
	VMULPD    Y2, Y2, Y2
	VADDPD    Y12, Y2, Y12
	VCVTPS2PD 16(SI)(AX*4), Y0
	VSUBPD    Y15, Y0, Y1
	VMULPD    Y1, Y1, Y1
	VADDPD    Y1, Y6, Y6
	VSUBPD    Y11, Y0, Y2
	VMULPD    Y2, Y2, Y2
	VADDPD    Y14, Y2, Y14
	HSUM4(Y6, X6, X4, X5)
	VADDSD    X6, X8, X8
	ADDQ      $8, AX
	CMPQ      AX, CX
	JB        td8row
	VMOVUPD   Y12, (R9)
	VMOVUPD   Y14, 32(R9)

tddone:
	VZEROUPPER
	MOVSD X8, ss+88(FP)
	RET

// func momentsMat32(a, b []float32, d int, inv float64) (am, av, bm, bv float64)
// Σ over rows of rowMoments2's four moments (each row's mean and variance
// of a and of b), in row order: mean = sumOf(row)/d, variance =
// sumSqDev(row, mean)/d, each /d a product with inv = 1/d, d a power of
// two: x·2⁻ᵏ and x/2ᵏ are the same exact value rounded once, so the same
// bits, and a multiply costs a fraction of the four divides a row took.
TEXT ·momentsMat32(SB), NOSPLIT, $0-96
	MOVQ         a_base+0(FP), SI
	MOVQ         a_len+8(FP), CX
	MOVQ         b_base+24(FP), DI
	MOVQ         d+48(FP), BX
	MOVSD        inv+56(FP), X15
	VBROADCASTSD X15, Y14
	VXORPD       X8, X8, X8
	VXORPD       X9, X9, X9
	VXORPD       X10, X10, X10
	VXORPD       X11, X11, X11
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           mmdone

mmrow:
	CMPQ BX, $8
	JNE  mmrow1
	LEAQ 32(AX), R8
	CMPQ R8, CX
	JA   mmrow1

	// d = 8, four rows at a time: each row's four lane sums as the row
	// loop takes them, transposed so that one add of lanes gives the four
	// rows' (s₀ + s₁) + (s₂ + s₃) and one multiply their means; the means
	// and variances are added to the sums one row at a time, in order.
	VXORPD    Y0, Y0, Y0
	VCVTPS2PD 0(SI)(AX*4), Y5
	VADDPD    Y5, Y0, Y0
	VCVTPS2PD 16(SI)(AX*4), Y5
	VADDPD    Y5, Y0, Y0
	VXORPD    Y1, Y1, Y1
	VCVTPS2PD 32(SI)(AX*4), Y5
	VADDPD    Y5, Y1, Y1
	VCVTPS2PD 48(SI)(AX*4), Y5
	VADDPD    Y5, Y1, Y1
	VXORPD    Y2, Y2, Y2
	VCVTPS2PD 64(SI)(AX*4), Y5
	VADDPD    Y5, Y2, Y2
	VCVTPS2PD 80(SI)(AX*4), Y5
	VADDPD    Y5, Y2, Y2
	VXORPD    Y3, Y3, Y3
	VCVTPS2PD 96(SI)(AX*4), Y5
	VADDPD    Y5, Y3, Y3
	VCVTPS2PD 112(SI)(AX*4), Y5
	VADDPD    Y5, Y3, Y3
	TRANSPOSE4(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	VADDPD    Y1, Y0, Y0
	VADDPD    Y3, Y2, Y2
	VADDPD    Y2, Y0, Y0
	VMULPD    Y14, Y0, Y12
	VADDSD       X12, X8, X8
	VPERMILPD    $1, X12, X4
	VADDSD       X4, X8, X8
	VEXTRACTF128 $1, Y12, X5
	VADDSD       X5, X8, X8
	VPERMILPD    $1, X5, X4
	VADDSD       X4, X8, X8
	VXORPD    Y0, Y0, Y0
	VCVTPS2PD 0(DI)(AX*4), Y5
	VADDPD    Y5, Y0, Y0
	VCVTPS2PD 16(DI)(AX*4), Y5
	VADDPD    Y5, Y0, Y0
	VXORPD    Y1, Y1, Y1
	VCVTPS2PD 32(DI)(AX*4), Y5
	VADDPD    Y5, Y1, Y1
	VCVTPS2PD 48(DI)(AX*4), Y5
	VADDPD    Y5, Y1, Y1
	VXORPD    Y2, Y2, Y2
	VCVTPS2PD 64(DI)(AX*4), Y5
	VADDPD    Y5, Y2, Y2
	VCVTPS2PD 80(DI)(AX*4), Y5
	VADDPD    Y5, Y2, Y2
	VXORPD    Y3, Y3, Y3
	VCVTPS2PD 96(DI)(AX*4), Y5
	VADDPD    Y5, Y3, Y3
	VCVTPS2PD 112(DI)(AX*4), Y5
	VADDPD    Y5, Y3, Y3
	TRANSPOSE4(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	VADDPD    Y1, Y0, Y0
	VADDPD    Y3, Y2, Y2
	VADDPD    Y2, Y0, Y0
	VMULPD    Y14, Y0, Y13
	VADDSD       X13, X10, X10
	VPERMILPD    $1, X13, X4
	VADDSD       X4, X10, X10
	VEXTRACTF128 $1, Y13, X5
	VADDSD       X5, X10, X10
	VPERMILPD    $1, X5, X4
	VADDSD       X4, X10, X10
	VXORPD    Y0, Y0, Y0
	VPERMPD   $0x00, Y12, Y6
	VCVTPS2PD 0(SI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y0, Y0
	VCVTPS2PD 16(SI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y0, Y0
	VXORPD    Y1, Y1, Y1
	VPERMPD   $0x55, Y12, Y6
	VCVTPS2PD 32(SI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y1, Y1
	VCVTPS2PD 48(SI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y1, Y1
	VXORPD    Y2, Y2, Y2
	VPERMPD   $0xaa, Y12, Y6
	VCVTPS2PD 64(SI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y2, Y2
	VCVTPS2PD 80(SI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y2, Y2
	VXORPD    Y3, Y3, Y3
	VPERMPD   $0xff, Y12, Y6
	VCVTPS2PD 96(SI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y3, Y3
	VCVTPS2PD 112(SI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y3, Y3
	TRANSPOSE4(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	VADDPD    Y1, Y0, Y0
	VADDPD    Y3, Y2, Y2
	VADDPD    Y2, Y0, Y0
	VMULPD    Y14, Y0, Y0
	VADDSD       X0, X9, X9
	VPERMILPD    $1, X0, X4
	VADDSD       X4, X9, X9
	VEXTRACTF128 $1, Y0, X5
	VADDSD       X5, X9, X9
	VPERMILPD    $1, X5, X4
	VADDSD       X4, X9, X9
	VXORPD    Y0, Y0, Y0
	VPERMPD   $0x00, Y13, Y6
	VCVTPS2PD 0(DI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y0, Y0
	VCVTPS2PD 16(DI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y0, Y0
	VXORPD    Y1, Y1, Y1
	VPERMPD   $0x55, Y13, Y6
	VCVTPS2PD 32(DI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y1, Y1
	VCVTPS2PD 48(DI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y1, Y1
	VXORPD    Y2, Y2, Y2
	VPERMPD   $0xaa, Y13, Y6
	VCVTPS2PD 64(DI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y2, Y2
	VCVTPS2PD 80(DI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y2, Y2
	VXORPD    Y3, Y3, Y3
	VPERMPD   $0xff, Y13, Y6
	VCVTPS2PD 96(DI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y3, Y3
	VCVTPS2PD 112(DI)(AX*4), Y5
	VSUBPD    Y6, Y5, Y5
	VMULPD    Y5, Y5, Y5
	VADDPD    Y5, Y3, Y3
	TRANSPOSE4(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	VADDPD    Y1, Y0, Y0
	VADDPD    Y3, Y2, Y2
	VADDPD    Y2, Y0, Y0
	VMULPD    Y14, Y0, Y0
	VADDSD       X0, X11, X11
	VPERMILPD    $1, X0, X4
	VADDSD       X4, X11, X11
	VEXTRACTF128 $1, Y0, X5
	VADDSD       X5, X11, X11
	VPERMILPD    $1, X5, X4
	VADDSD       X4, X11, X11
	ADDQ $32, AX
	CMPQ AX, CX
	JB   mmrow
	JMP  mmdone

mmrow1:
	// the row's sums
	MOVQ   AX, R8
	XORQ   DX, DX
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

mmsum:
	VCVTPS2PD (SI)(R8*4), Y0
	VADDPD    Y0, Y6, Y6
	VCVTPS2PD (DI)(R8*4), Y1
	VADDPD    Y1, Y7, Y7
	ADDQ      $4, R8
	ADDQ      $4, DX
	CMPQ      DX, BX
	JB        mmsum
	HSUM4(Y6, X6, X4, X5)
	VMULSD       X15, X6, X6
	VADDSD       X6, X8, X8
	HSUM4(Y7, X7, X4, X5)
	VMULSD       X15, X7, X7
	VADDSD       X7, X10, X10
	VBROADCASTSD X6, Y12
	VBROADCASTSD X7, Y13

	// the squared deviations from the row's means
	MOVQ   AX, R8
	XORQ   DX, DX
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

mmdev:
	VCVTPS2PD (SI)(R8*4), Y0
	VSUBPD    Y12, Y0, Y0
	VMULPD    Y0, Y0, Y0
	VADDPD    Y0, Y6, Y6
	VCVTPS2PD (DI)(R8*4), Y1
	VSUBPD    Y13, Y1, Y1
	VMULPD    Y1, Y1, Y1
	VADDPD    Y1, Y7, Y7
	ADDQ      $4, R8
	ADDQ      $4, DX
	CMPQ      DX, BX
	JB        mmdev
	HSUM4(Y6, X6, X4, X5)
	VMULSD    X15, X6, X6
	VADDSD    X6, X9, X9
	HSUM4(Y7, X7, X4, X5)
	VMULSD    X15, X7, X7
	VADDSD    X7, X11, X11
	MOVQ      R8, AX
	CMPQ      AX, CX
	JB        mmrow

mmdone:
	VZEROUPPER
	MOVSD X8, am+64(FP)
	MOVSD X9, av+72(FP)
	MOVSD X10, bm+80(FP)
	MOVSD X11, bv+88(FP)
	RET

// func moments2Mat32(a, b []float32, d int, inv float64) (am, av, bm, bv float64)
// momentsMat32 for rows of d = 16·2ᵏ features, each row's moments as
// moments2_32AVX and rowMoments2Fast take them (eight lane sums a row, the
// deviations' squares by FMA, the variance a sum over d), added in row
// order as momentSums.add adds them; /d a product with inv = 1/d, as in
// momentsMat32. Before, a call per row cost more than its 16-32 values.
TEXT ·moments2Mat32(SB), NOSPLIT, $0-96
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   b_base+24(FP), BX
	MOVQ   d+48(FP), R9
	MOVSD  inv+56(FP), X13
	VXORPD X4, X4, X4
	VXORPD X5, X5, X5
	VXORPD X6, X6, X6
	VXORPD X7, X7, X7
	XORQ   R8, R8
	TESTQ  CX, CX
	JZ     mmmdone

mmmrow:
	LEAQ   (R8)(R9*1), DX
	MOVQ   R8, AX
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11

mmmsum:
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
	JB        mmmsum

	VADDPD       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VMULSD       X13, X8, X8
	VADDSD       X8, X4, X4
	VADDPD       Y11, Y10, Y10
	VEXTRACTF128 $1, Y10, X0
	VADDPD       X0, X10, X10
	VUNPCKHPD    X10, X10, X0
	VADDSD       X0, X10, X10
	VMULSD       X13, X10, X10
	VADDSD       X10, X6, X6
	VBROADCASTSD X8, Y14
	VBROADCASTSD X10, Y15
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	VXORPD       Y10, Y10, Y10
	VXORPD       Y11, Y11, Y11
	MOVQ         R8, AX

mmmdev:
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
	JB          mmmdev

	VADDPD       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VMULSD       X13, X8, X8
	VADDSD       X8, X5, X5
	VADDPD       Y11, Y10, Y10
	VEXTRACTF128 $1, Y10, X0
	VADDPD       X0, X10, X10
	VUNPCKHPD    X10, X10, X0
	VADDSD       X0, X10, X10
	VMULSD       X13, X10, X10
	VADDSD       X10, X7, X7
	MOVQ         DX, R8
	CMPQ         R8, CX
	JB           mmmrow

mmmdone:
	VZEROUPPER
	MOVSD X4, am+64(FP)
	MOVSD X5, av+72(FP)
	MOVSD X6, bm+80(FP)
	MOVSD X7, bv+88(FP)
	RET

// The per-feature passes over plain rows of d = 16k features, where the
// per-row path runs every row through the FMA kernels of simd_amd64.s and
// simd_tap_amd64.s: the same per-element operations, a row at a time in
// row order, without a Go call per row (at the resnet's 16 and 32
// channels, 6,272 and 1,568 rows a site).

// func colWriteMatFMA32(x []float32, d int, mu, a, gam, bet []float64, y []float32)
// y = float32(fma(γ, (x - μ)·a, β)), colWrite32AVX with sc = 1 (whose
// x·1 is x).
TEXT ·colWriteMatFMA32(SB), NOSPLIT, $0-152
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ d+24(FP), BX
	MOVQ mu_base+32(FP), R9
	MOVQ a_base+56(FP), R10
	MOVQ gam_base+80(FP), R11
	MOVQ bet_base+104(FP), R8
	MOVQ y_base+128(FP), DI
	XORQ AX, AX
	TESTQ CX, CX
	JZ   cwfdone

cwfrow:
	XORQ DX, DX

cwfloop:
	VCVTPS2PD   (SI)(AX*4), Y0
	VSUBPD      (R9)(DX*8), Y0, Y0
	VMULPD      (R10)(DX*8), Y0, Y0
	VMOVUPD     (R11)(DX*8), Y1
	VFMADD213PD (R8)(DX*8), Y1, Y0
	VCVTPD2PSY  Y0, X0
	VMOVUPS     X0, (DI)(AX*4)
	ADDQ        $4, AX
	ADDQ        $4, DX
	CMPQ        DX, BX
	JB          cwfloop
	CMPQ        AX, CX
	JB          cwfrow

cwfdone:
	VZEROUPPER
	RET

// func colAccumDevMatFMA32(x []float32, d int, mean, vs []float64)
// vs = fma(x - mean, x - mean, vs) per feature, colAccumDev32AVX with
// sc = 1.
TEXT ·colAccumDevMatFMA32(SB), NOSPLIT, $0-80
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ d+24(FP), BX
	MOVQ mean_base+32(FP), R9
	MOVQ vs_base+56(FP), R10
	XORQ AX, AX
	TESTQ CX, CX
	JZ   cdfdone

cdfrow:
	XORQ DX, DX

cdfloop:
	VCVTPS2PD   (SI)(AX*4), Y0
	VSUBPD      (R9)(DX*8), Y0, Y0
	VMOVUPD     (R10)(DX*8), Y1
	VFMADD231PD Y0, Y0, Y1
	VMOVUPD     Y1, (R10)(DX*8)
	ADDQ        $4, AX
	ADDQ        $4, DX
	CMPQ        DX, BX
	JB          cdfloop
	CMPQ        AX, CX
	JB          cdfrow

cdfdone:
	VZEROUPPER
	RET

// func tapAccumMatFMA32(x []float32, d int, mean, psi []float64) (sum, maxAbs float64)
// statTapSums' row loop of tapAccumRow32AVX over plain rows (one group of
// d = 16k features, scale 1, whose x·1 is x): per row its lane sums
// reduced as that kernel reduces them, added to sum in row order; mean +=
// x and psi = fma(x, x, psi) per feature; maxAbs = max|x| (meaningless
// when x holds a NaN or both infinities: then sum is NaN and the caller
// runs the row loop instead).
TEXT ·tapAccumMatFMA32(SB), NOSPLIT, $0-96
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         d+24(FP), BX
	MOVQ         mean_base+32(FP), R9
	MOVQ         psi_base+56(FP), R10
	VBROADCASTSD colmatabs<>(SB), Y13
	VXORPD       Y9, Y9, Y9
	VXORPD       X10, X10, X10
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           tafdone

tafrow:
	XORQ   DX, DX
	VXORPD Y8, Y8, Y8

tafloop:
	VCVTPS2PD   (SI)(AX*4), Y0
	VADDPD      Y0, Y8, Y8
	VANDPD      Y13, Y0, Y1
	VMAXPD      Y1, Y9, Y9
	VADDPD      (R9)(DX*8), Y0, Y3
	VMOVUPD     Y3, (R9)(DX*8)
	VMOVUPD     (R10)(DX*8), Y2
	VFMADD231PD Y0, Y0, Y2
	VMOVUPD     Y2, (R10)(DX*8)
	ADDQ        $4, AX
	ADDQ        $4, DX
	CMPQ        DX, BX
	JB          tafloop
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VADDSD       X8, X10, X10
	CMPQ         AX, CX
	JB           tafrow

tafdone:
	VEXTRACTF128 $1, Y9, X1
	VMAXPD       X1, X9, X9
	VUNPCKHPD    X9, X9, X1
	VMAXSD       X1, X9, X9
	VZEROUPPER
	MOVSD        X10, sum+80(FP)
	MOVSD        X9, maxAbs+88(FP)
	RET

// func tapDevMatFMA32(x []float32, d int, mu float64, mean, vs []float64) (ss float64)
// statTapDevs' row loop of tapDevRow32AVX over plain rows (one group of
// d = 16k features, scale 1): per row Σ(x - mu)² in its two accumulators,
// reduced as that kernel reduces them, added to ss in row order; vs =
// fma(x - mean, x - mean, vs) per feature.
TEXT ·tapDevMatFMA32(SB), NOSPLIT, $0-96
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         d+24(FP), BX
	VBROADCASTSD mu+32(FP), Y14
	MOVQ         mean_base+40(FP), R9
	MOVQ         vs_base+64(FP), R10
	VXORPD       X10, X10, X10
	XORQ         AX, AX
	TESTQ        CX, CX
	JZ           tdfdone

tdfrow:
	XORQ   DX, DX
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9

tdfloop:
	VCVTPS2PD   (SI)(AX*4), Y0
	VSUBPD      Y14, Y0, Y1
	VFMADD231PD Y1, Y1, Y8
	VSUBPD      (R9)(DX*8), Y0, Y0
	VMOVUPD     (R10)(DX*8), Y1
	VFMADD231PD Y0, Y0, Y1
	VMOVUPD     Y1, (R10)(DX*8)
	VCVTPS2PD   16(SI)(AX*4), Y2
	VSUBPD      Y14, Y2, Y3
	VFMADD231PD Y3, Y3, Y9
	VSUBPD      32(R9)(DX*8), Y2, Y2
	VMOVUPD     32(R10)(DX*8), Y3
	VFMADD231PD Y2, Y2, Y3
	VMOVUPD     Y3, 32(R10)(DX*8)
	ADDQ        $8, AX
	ADDQ        $8, DX
	CMPQ        DX, BX
	JB          tdfloop
	VADDPD       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X8
	VUNPCKHPD    X8, X8, X0
	VADDSD       X0, X8, X8
	VADDSD       X8, X10, X10
	CMPQ         AX, CX
	JB           tdfrow

tdfdone:
	VZEROUPPER
	MOVSD X10, ss+88(FP)
	RET
