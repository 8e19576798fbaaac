//go:build amd64 && !purego

#include "textflag.h"

// The bias, Adam, softmax-backward and ReLU kernels: the Go loop's own
// operations lane-wise (vec_amd64.s says what the kernels share).

// func scale32AVX(x []float32, a float32)
// x[i] *= a; len(x) is a multiple of 8.
TEXT ·scale32AVX(SB), NOSPLIT, $0-28
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSS a+24(FP), Y8
	SHRQ         $3, CX
	JZ           scaledone

scaleloop:
	VMULPS  (SI), Y8, Y0
	VMOVUPS Y0, (SI)
	ADDQ    $32, SI
	DECQ    CX
	JNZ     scaleloop

scaledone:
	VZEROUPPER
	RET

// func scaleSub32AVX(x []float32, a, b float32)
// x[i] = x[i]*a - b, the product rounded first (no FMA), as scale32AVX and
// then a subtraction would; len(x) is a multiple of 8.
TEXT ·scaleSub32AVX(SB), NOSPLIT, $0-32
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSS a+24(FP), Y8
	VBROADCASTSS b+28(FP), Y9
	SHRQ         $3, CX
	JZ           scalesubdone

scalesubloop:
	VMULPS  (SI), Y8, Y0
	VSUBPS  Y9, Y0, Y0
	VMOVUPS Y0, (SI)
	ADDQ    $32, SI
	DECQ    CX
	JNZ     scalesubloop

scalesubdone:
	VZEROUPPER
	RET

// func addRow32AVX(x, b, out []float32)
// out[i] = x[i] + b[i]; len(x) is a multiple of 8, b and out as long.
TEXT ·addRow32AVX(SB), NOSPLIT, $0-72
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ b_base+24(FP), DX
	MOVQ out_base+48(FP), DI
	SHRQ $3, CX
	JZ   adddone

addloop:
	VMOVUPS (SI), Y0
	VADDPS  (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     addloop

adddone:
	VZEROUPPER
	RET

// func mulMask32AVX(x, m, out []float32)
// out[i] = x[i] * m[i] (dropout's mask); len(x) is a multiple of 8, m and
// out as long.
TEXT ·mulMask32AVX(SB), NOSPLIT, $0-72
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ m_base+24(FP), DX
	MOVQ out_base+48(FP), DI
	SHRQ $3, CX
	JZ   muldone

mulloop:
	VMOVUPS (SI), Y0
	VMULPS  (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     mulloop

muldone:
	VZEROUPPER
	RET

// func colAdd32AVX(g []float32, acc []float64)
// acc[i] += float64(g[i]); len(g) is a multiple of 8, acc as long.
TEXT ·colAdd32AVX(SB), NOSPLIT, $0-48
	MOVQ g_base+0(FP), SI
	MOVQ g_len+8(FP), CX
	MOVQ acc_base+24(FP), DI
	SHRQ $3, CX
	JZ   coldone

colloop:
	VCVTPS2PD (SI), Y0
	VCVTPS2PD 16(SI), Y1
	VADDPD    (DI), Y0, Y0
	VADDPD    32(DI), Y1, Y1
	VMOVUPD   Y0, (DI)
	VMOVUPD   Y1, 32(DI)
	ADDQ      $32, SI
	ADDQ      $64, DI
	DECQ      CX
	JNZ       colloop

coldone:
	VZEROUPPER
	RET

// func adam32AVX(p, g []float32, m, v []float64, k *adamConsts)
// The weight decay (when k.decay) and the Adam update of adamUpdate, four
// lanes at a time in float64 without FMA, so bit-identical to the Go loop;
// len(p) is a multiple of 4, the other slices as long.
TEXT ·adam32AVX(SB), NOSPLIT, $0-104
	MOVQ         p_base+0(FP), SI
	MOVQ         p_len+8(FP), CX
	MOVQ         g_base+24(FP), DX
	MOVQ         m_base+48(FP), R8
	MOVQ         v_base+72(FP), R9
	MOVQ         k+96(FP), AX
	VBROADCASTSD 0(AX), Y8   // gscale
	VBROADCASTSD 8(AX), Y9   // β1
	VBROADCASTSD 16(AX), Y10 // 1-β1
	VBROADCASTSD 24(AX), Y11 // β2
	VBROADCASTSD 32(AX), Y12 // 1-β2
	VBROADCASTSD 40(AX), Y13 // lr/c1
	VBROADCASTSD 48(AX), Y14 // 1/c2
	VBROADCASTSD 56(AX), Y15 // ε
	VBROADCASTSD 64(AX), Y7  // shrink
	MOVQ         72(AX), BX  // decay
	SHRQ         $2, CX
	JZ           adamdone

adamloop:
	VMOVUPS    (SI), X6      // p
	TESTQ      BX, BX
	JZ         adamupdate
	VCVTPS2PD  X6, Y5
	VMULPD     Y7, Y5, Y5    // shrink·p
	VCVTPD2PSY Y5, X5
	VSUBPS     X5, X6, X6    // p −= float32(shrink·p)

adamupdate:
	VCVTPS2PD  (DX), Y0
	VMULPD     Y8, Y0, Y0    // gk
	VMULPD     (R8), Y9, Y1  // β1·m
	VMULPD     Y10, Y0, Y2   // (1-β1)·gk
	VADDPD     Y2, Y1, Y1    // m
	VMOVUPD    Y1, (R8)
	VMULPD     (R9), Y11, Y3 // β2·v
	VMULPD     Y12, Y0, Y4   // (1-β2)·gk
	VMULPD     Y0, Y4, Y4    // ·gk
	VADDPD     Y4, Y3, Y3    // v
	VMOVUPD    Y3, (R9)
	VMULPD     Y13, Y1, Y1   // lr/c1·m
	VMULPD     Y14, Y3, Y3   // v/c2
	VSQRTPD    Y3, Y3
	VADDPD     Y15, Y3, Y3   // +ε
	VDIVPD     Y3, Y1, Y1
	VCVTPD2PSY Y1, X1
	VSUBPS     X1, X6, X6
	VMOVUPS    X6, (SI)
	ADDQ       $16, SI
	ADDQ       $16, DX
	ADDQ       $32, R8
	ADDQ       $32, R9
	DECQ       CX
	JNZ        adamloop

adamdone:
	VZEROUPPER
	RET

// func adam32AVX512(p, g []float32, m, v []float64, k *adamConsts)
// adam32AVX with eight float64 lanes (AVX-512F): the same operations in
// the same order, still without FMA; a square root or a division is
// correctly rounded at every width, so the bits are the Go loop's. The
// square root and the division were the loop's bottleneck (the step's
// moments fit no cache either way); at 512 bits each instruction does
// twice the lanes. len(p) is a multiple of 8, the other slices as long.
TEXT ·adam32AVX512(SB), NOSPLIT, $0-104
	MOVQ         p_base+0(FP), SI
	MOVQ         p_len+8(FP), CX
	MOVQ         g_base+24(FP), DX
	MOVQ         m_base+48(FP), R8
	MOVQ         v_base+72(FP), R9
	MOVQ         k+96(FP), AX
	VBROADCASTSD 0(AX), Z8   // gscale
	VBROADCASTSD 8(AX), Z9   // β1
	VBROADCASTSD 16(AX), Z10 // 1-β1
	VBROADCASTSD 24(AX), Z11 // β2
	VBROADCASTSD 32(AX), Z12 // 1-β2
	VBROADCASTSD 40(AX), Z13 // lr/c1
	VBROADCASTSD 48(AX), Z14 // 1/c2
	VBROADCASTSD 56(AX), Z15 // ε
	VBROADCASTSD 64(AX), Z7  // shrink
	MOVQ         72(AX), BX  // decay
	SHRQ         $3, CX
	JZ           adam512done

adam512loop:
	VMOVUPS   (SI), Y6       // p
	TESTQ     BX, BX
	JZ        adam512update
	VCVTPS2PD Y6, Z5
	VMULPD    Z7, Z5, Z5     // shrink·p
	VCVTPD2PS Z5, Y5
	VSUBPS    Y5, Y6, Y6     // p −= float32(shrink·p)

adam512update:
	VCVTPS2PD (DX), Z0
	VMULPD    Z8, Z0, Z0     // gk
	VMULPD    (R8), Z9, Z1   // β1·m
	VMULPD    Z10, Z0, Z2    // (1-β1)·gk
	VADDPD    Z2, Z1, Z1     // m
	VMOVUPD   Z1, (R8)
	VMULPD    (R9), Z11, Z3  // β2·v
	VMULPD    Z12, Z0, Z4    // (1-β2)·gk
	VMULPD    Z0, Z4, Z4     // ·gk
	VADDPD    Z4, Z3, Z3     // v
	VMOVUPD   Z3, (R9)
	VMULPD    Z13, Z1, Z1    // lr/c1·m
	VMULPD    Z14, Z3, Z3    // v/c2
	VSQRTPD   Z3, Z3
	VADDPD    Z15, Z3, Z3    // +ε
	VDIVPD    Z3, Z1, Z1
	VCVTPD2PS Z1, Y1
	VSUBPS    Y1, Y6, Y6
	VMOVUPS   Y6, (SI)
	ADDQ      $32, SI
	ADDQ      $32, DX
	ADDQ      $64, R8
	ADDQ      $64, R9
	DECQ      CX
	JNZ       adam512loop

adam512done:
	VZEROUPPER
	RET

// func dot32AVX(a, b []float32) float64
// Σ a[i]·b[i] in float64 (each product exact, so each FMA rounds only the
// add); len(a) is a multiple of 8, b as long.
TEXT ·dot32AVX(SB), NOSPLIT, $0-56
	MOVQ   a_base+0(FP), SI
	MOVQ   a_len+8(FP), CX
	MOVQ   b_base+24(FP), DX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	SHRQ   $3, CX
	JZ     dotdone

dotloop:
	VCVTPS2PD   (SI), Y2
	VCVTPS2PD   16(SI), Y3
	VCVTPS2PD   (DX), Y4
	VCVTPS2PD   16(DX), Y5
	VFMADD231PD Y4, Y2, Y0
	VFMADD231PD Y5, Y3, Y1
	ADDQ        $32, SI
	ADDQ        $32, DX
	DECQ        CX
	JNZ         dotloop

dotdone:
	VADDPD       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VADDSD       X1, X0, X0
	VZEROUPPER
	MOVSD        X0, ret+48(FP)
	RET

// func softmaxGrad32AVX(p, d []float32, dot, sc float64)
// d[i] = float32(p[i]·(d[i]−dot)·sc) in float64, the Go loop's operations
// in its order, so bit-identical to it; len(p) is a multiple of 8, d as
// long.
TEXT ·softmaxGrad32AVX(SB), NOSPLIT, $0-64
	MOVQ         p_base+0(FP), SI
	MOVQ         p_len+8(FP), CX
	MOVQ         d_base+24(FP), DI
	VBROADCASTSD dot+48(FP), Y8
	VBROADCASTSD sc+56(FP), Y9
	SHRQ         $3, CX
	JZ           sgdone

sgloop:
	VCVTPS2PD  (SI), Y0
	VCVTPS2PD  16(SI), Y1
	VCVTPS2PD  (DI), Y2
	VCVTPS2PD  16(DI), Y3
	VSUBPD     Y8, Y2, Y2
	VSUBPD     Y8, Y3, Y3
	VMULPD     Y2, Y0, Y0
	VMULPD     Y3, Y1, Y1
	VMULPD     Y9, Y0, Y0
	VMULPD     Y9, Y1, Y1
	VCVTPD2PSY Y0, X0
	VCVTPD2PSY Y1, X1
	VMOVUPS    X0, (DI)
	VMOVUPS    X1, 16(DI)
	ADDQ       $32, SI
	ADDQ       $32, DI
	DECQ       CX
	JNZ        sgloop

sgdone:
	VZEROUPPER
	RET

// func reluMask32AVX(x, v, out []float32)
// out[i] = v[i] · [x[i] ≥ 0]; len(x) is a multiple of 8, v and out as long.
// The mask is 1.0 or 0.0 (an ordered compare: NaN gives 0), multiplied
// in, so NaN, −0 and −Inf·0 come out as the Go loop's product does.
TEXT ·reluMask32AVX(SB), NOSPLIT, $0-72
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ v_base+24(FP), DX
	MOVQ out_base+48(FP), DI
	SHRQ $3, CX
	JZ   reludone
	MOVL $0x3f800000, AX // 1.0
	MOVL AX, X7
	VBROADCASTSS X7, Y7
	VXORPS Y6, Y6, Y6

reluloop:
	VMOVUPS (SI), Y0
	VCMPPS  $0x1d, Y6, Y0, Y1 // x ≥ 0, ordered, non-signalling (GE_OQ)
	VANDPS  Y7, Y1, Y1
	VMULPS  (DX), Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     reluloop

reludone:
	VZEROUPPER
	RET

DATA msNegInf<>+0(SB)/4, $0xff800000 // -Inf
GLOBL msNegInf<>(SB), RODATA|NOPTR, $4

// func maxSum32AVX(x []float32) (m float32, s float64)
// The largest element (as max32AVX; NaNs may or may not win) and Σ x[i] in
// float64 in internal/simd.Sum32's lanes and order (so its bits), in one
// pass: the cross-entropy's forward with label smoothing reads both of a
// vocabulary row. len(x) is a multiple of 16.
TEXT ·maxSum32AVX(SB), NOSPLIT, $0-40
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSS msNegInf<>(SB), Y6
	VMOVAPS      Y6, Y7
	VXORPD       Y0, Y0, Y0
	VXORPD       Y1, Y1, Y1
	VXORPD       Y2, Y2, Y2
	VXORPD       Y3, Y3, Y3
	SHRQ         $4, CX
	JZ           msdone

msloop:
	VMAXPS    (SI), Y6, Y6
	VMAXPS    32(SI), Y7, Y7
	VCVTPS2PD (SI), Y4
	VCVTPS2PD 16(SI), Y5
	VCVTPS2PD 32(SI), Y8
	VCVTPS2PD 48(SI), Y9
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	VADDPD    Y8, Y2, Y2
	VADDPD    Y9, Y3, Y3
	ADDQ      $64, SI
	DECQ      CX
	JNZ       msloop

msdone:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VADDSD       X1, X0, X0
	MOVSD        X0, s+32(FP)
	VMAXPS       Y7, Y6, Y6
	VEXTRACTF128 $1, Y6, X7
	VMAXPS       X7, X6, X6
	VPERMILPS    $0x4e, X6, X7
	VMAXPS       X7, X6, X6
	VPERMILPS    $0xb1, X6, X7
	VMAXPS       X7, X6, X6
	VZEROUPPER
	MOVSS        X6, m+24(FP)
	RET
