//go:build amd64 && !purego

#include "textflag.h"

// AVX-512F versions of the exp kernels of vec_amd64.s: sixteen lanes a
// step, the AVX2 kernels' operations lane by lane (EXP16 is EXP8 on
// sixteen lanes), so every exp has the AVX2 kernel's bits; sums keep its
// order too: the eight float64 accumulator lanes are its Y6 (lanes 0-3)
// and Y7 (4-7), and each sixteen-element step adds its two halves in turn,
// as the AVX2 kernel adds two eight-element steps. The last fifteen or
// fewer elements go through the AVX2 code (EXP8, TAILMASK).
// vec_amd64.s's DATA symbols are private to that file, so the constants
// are repeated here.

DATA e5Hi<>+0(SB)/4, $0x42b1999a    // 88.8
GLOBL e5Hi<>(SB), RODATA|NOPTR, $4
DATA e5Lo<>+0(SB)/4, $0xc2d00000    // -104
GLOBL e5Lo<>(SB), RODATA|NOPTR, $4
DATA e5Log2e<>+0(SB)/4, $0x3fb8aa3b // log2(e)
GLOBL e5Log2e<>(SB), RODATA|NOPTR, $4
DATA e5Ln2Hi<>+0(SB)/4, $0x3f317218 // float32(ln 2)
GLOBL e5Ln2Hi<>(SB), RODATA|NOPTR, $4
DATA e5Ln2Lo<>+0(SB)/4, $0xb102e308 // ln 2 - float32(ln 2)
GLOBL e5Ln2Lo<>(SB), RODATA|NOPTR, $4
DATA e5C2<>+0(SB)/4, $0x3f000000    // 1/2!
GLOBL e5C2<>(SB), RODATA|NOPTR, $4
DATA e5C3<>+0(SB)/4, $0x3e2aaaab    // 1/3!
GLOBL e5C3<>(SB), RODATA|NOPTR, $4
DATA e5C4<>+0(SB)/4, $0x3d2aaaab    // 1/4!
GLOBL e5C4<>(SB), RODATA|NOPTR, $4
DATA e5C5<>+0(SB)/4, $0x3c088889    // 1/5!
GLOBL e5C5<>(SB), RODATA|NOPTR, $4
DATA e5C6<>+0(SB)/4, $0x3ab60b61    // 1/6!
GLOBL e5C6<>(SB), RODATA|NOPTR, $4
DATA e5C7<>+0(SB)/4, $0x39500d01    // 1/7!
GLOBL e5C7<>(SB), RODATA|NOPTR, $4
DATA e5One<>+0(SB)/4, $0x3f800000   // 1.0
GLOBL e5One<>(SB), RODATA|NOPTR, $4
DATA e5Bias<>+0(SB)/4, $127         // float32 exponent bias
GLOBL e5Bias<>(SB), RODATA|NOPTR, $4

DATA e5Lanes<>+0(SB)/4, $0
DATA e5Lanes<>+4(SB)/4, $1
DATA e5Lanes<>+8(SB)/4, $2
DATA e5Lanes<>+12(SB)/4, $3
DATA e5Lanes<>+16(SB)/4, $4
DATA e5Lanes<>+20(SB)/4, $5
DATA e5Lanes<>+24(SB)/4, $6
DATA e5Lanes<>+28(SB)/4, $7
GLOBL e5Lanes<>(SB), RODATA|NOPTR, $32

// TAILMASK5 sets Y4 to all-ones in the lanes below CX (1..7) and zero above.
#define TAILMASK5 \
	MOVL         CX, AX; \
	VMOVD        AX, X4; \
	VPBROADCASTD X4, Y4; \
	VMOVDQU      e5Lanes<>(SB), Y5; \
	VPCMPGTD     Y5, Y4, Y4

// EXPCONST16 loads the constants into Z9-Z15; their low halves Y9-Y15 are
// what EXP8Y reads.
#define EXPCONST16 \
	VBROADCASTSS e5Hi<>(SB), Z9; \
	VBROADCASTSS e5Lo<>(SB), Z10; \
	VBROADCASTSS e5Log2e<>(SB), Z11; \
	VBROADCASTSS e5Ln2Hi<>(SB), Z12; \
	VBROADCASTSS e5Ln2Lo<>(SB), Z13; \
	VPBROADCASTD e5Bias<>(SB), Z14; \
	VBROADCASTSS e5One<>(SB), Z15

// EXP16 sets Z2 = exp(Z0) in sixteen lanes (Z0, Z1, Z3, Z5 clobbered):
// EXP8 of vec_amd64.s instruction for instruction (VRNDSCALEPS $0 rounds
// to nearest even as VROUNDPS $0 does).
#define EXP16 \
	VMINPS       Z0, Z9, Z0; \
	VMAXPS       Z0, Z10, Z0; \
	VMULPS       Z11, Z0, Z1; \
	VRNDSCALEPS  $0, Z1, Z1; \
	VFNMADD231PS Z1, Z12, Z0; \
	VFNMADD231PS Z1, Z13, Z0; \
	VBROADCASTSS e5C7<>(SB), Z2; \
	VBROADCASTSS e5C6<>(SB), Z5; \
	VFMADD213PS  Z5, Z0, Z2; \
	VBROADCASTSS e5C5<>(SB), Z5; \
	VFMADD213PS  Z5, Z0, Z2; \
	VBROADCASTSS e5C4<>(SB), Z5; \
	VFMADD213PS  Z5, Z0, Z2; \
	VBROADCASTSS e5C3<>(SB), Z5; \
	VFMADD213PS  Z5, Z0, Z2; \
	VBROADCASTSS e5C2<>(SB), Z5; \
	VFMADD213PS  Z5, Z0, Z2; \
	VFMADD213PS  Z15, Z0, Z2; \
	VFMADD213PS  Z15, Z0, Z2; \
	VCVTPS2DQ    Z1, Z1; \
	VPSRAD       $1, Z1, Z3; \
	VPSUBD       Z3, Z1, Z1; \
	VPADDD       Z14, Z3, Z3; \
	VPSLLD       $23, Z3, Z3; \
	VPADDD       Z14, Z1, Z1; \
	VPSLLD       $23, Z1, Z1; \
	VMULPS       Z3, Z2, Z2; \
	VMULPS       Z1, Z2, Z2

// EXP8Y is EXP8 of vec_amd64.s (Y2 = exp(Y0); Y0, Y1, Y3, Y5 clobbered).
#define EXP8Y \
	VMINPS       Y0, Y9, Y0; \
	VMAXPS       Y0, Y10, Y0; \
	VMULPS       Y11, Y0, Y1; \
	VROUNDPS     $0, Y1, Y1; \
	VFNMADD231PS Y1, Y12, Y0; \
	VFNMADD231PS Y1, Y13, Y0; \
	VBROADCASTSS e5C7<>(SB), Y2; \
	VBROADCASTSS e5C6<>(SB), Y5; \
	VFMADD213PS  Y5, Y0, Y2; \
	VBROADCASTSS e5C5<>(SB), Y5; \
	VFMADD213PS  Y5, Y0, Y2; \
	VBROADCASTSS e5C4<>(SB), Y5; \
	VFMADD213PS  Y5, Y0, Y2; \
	VBROADCASTSS e5C3<>(SB), Y5; \
	VFMADD213PS  Y5, Y0, Y2; \
	VBROADCASTSS e5C2<>(SB), Y5; \
	VFMADD213PS  Y5, Y0, Y2; \
	VFMADD213PS  Y15, Y0, Y2; \
	VFMADD213PS  Y15, Y0, Y2; \
	VCVTPS2DQ    Y1, Y1; \
	VPSRAD       $1, Y1, Y3; \
	VPSUBD       Y3, Y1, Y1; \
	VPADDD       Y14, Y3, Y3; \
	VPSLLD       $23, Y3, Y3; \
	VPADDD       Y14, Y1, Y1; \
	VPSLLD       $23, Y1, Y1; \
	VMULPS       Y3, Y2, Y2; \
	VMULPS       Y1, Y2, Y2

// SUM8Y is SUM8 of vec_amd64.s: Y2's eight lanes into Y6 (0-3) and Y7 (4-7).
#define SUM8Y \
	VCVTPS2PD    X2, Y3; \
	VEXTRACTF128 $1, Y2, X1; \
	VCVTPS2PD    X1, Y1; \
	VADDPD       Y3, Y6, Y6; \
	VADDPD       Y1, Y7, Y7

// func expShiftSum32AVX512(x, y []float32, s float32) float64
// expShiftSum32AVX, sixteen lanes a step: the same y and the same sum.
TEXT ·expShiftSum32AVX512(SB), NOSPLIT, $0-64
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         y_base+24(FP), DI
	MOVQ         y_len+32(FP), DX
	VBROADCASTSS s+48(FP), Z8
	EXPCONST16
	VXORPD       Z6, Z6, Z6
	MOVQ         CX, BX
	SHRQ         $4, BX
	JZ           x5rest

x5loop:
	VMOVUPS (SI), Z0
	VSUBPS  Z8, Z0, Z0
	EXP16
	TESTQ   DX, DX
	JZ      x5nostore
	VMOVUPS Z2, (DI)
	ADDQ    $64, DI

x5nostore:
	VCVTPS2PD     Y2, Z3
	VADDPD        Z3, Z6, Z6
	VEXTRACTF64X4 $1, Z2, Y1
	VCVTPS2PD     Y1, Z1
	VADDPD        Z1, Z6, Z6
	ADDQ          $64, SI
	DECQ          BX
	JNZ           x5loop

x5rest:
	// the accumulators as the AVX2 code keeps them: lanes 0-3 are Y6
	// already, lanes 4-7 go to Y7
	VEXTRACTF64X4 $1, Z6, Y7
	ANDQ          $15, CX
	TESTQ         $8, CX
	JZ            x5tail
	VMOVUPS       (SI), Y0
	VSUBPS        Y8, Y0, Y0
	EXP8Y
	TESTQ         DX, DX
	JZ            x5nostore8
	VMOVUPS       Y2, (DI)
	ADDQ          $32, DI

x5nostore8:
	SUM8Y
	ADDQ $32, SI

x5tail:
	ANDQ $7, CX
	JZ   x5done
	TAILMASK5
	VMASKMOVPS (SI), Y4, Y0
	VSUBPS     Y8, Y0, Y0
	EXP8Y
	VANDPS     Y4, Y2, Y2
	TESTQ      DX, DX
	JZ         x5tailsum
	VMASKMOVPS Y2, Y4, (DI)

x5tailsum:
	SUM8Y

x5done:
	VADDPD       Y7, Y6, Y6
	VEXTRACTF128 $1, Y6, X7
	VADDPD       X7, X6, X6
	VUNPCKHPD    X6, X6, X7
	VADDSD       X7, X6, X6
	VZEROUPPER
	MOVSD        X6, ret+56(FP)
	RET

// func expScaleSub32AVX512(x, y []float32, s, a, b float32)
// expScaleSub32AVX, sixteen lanes a step: the same y.
TEXT ·expScaleSub32AVX512(SB), NOSPLIT, $0-60
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         y_base+24(FP), DI
	VBROADCASTSS s+48(FP), Z8
	VBROADCASTSS a+52(FP), Z6
	VBROADCASTSS b+56(FP), Z7
	EXPCONST16
	MOVQ         CX, BX
	SHRQ         $4, BX
	JZ           s5rest

s5loop:
	VMOVUPS (SI), Z0
	VSUBPS  Z8, Z0, Z0
	EXP16
	VMULPS  Z2, Z6, Z2
	VSUBPS  Z7, Z2, Z2
	VMOVUPS Z2, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    BX
	JNZ     s5loop

s5rest:
	ANDQ    $15, CX
	TESTQ   $8, CX
	JZ      s5tail
	VMOVUPS (SI), Y0
	VSUBPS  Y8, Y0, Y0
	EXP8Y
	VMULPS  Y2, Y6, Y2
	VSUBPS  Y7, Y2, Y2
	VMOVUPS Y2, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI

s5tail:
	ANDQ $7, CX
	JZ   s5done
	TAILMASK5
	VMASKMOVPS (SI), Y4, Y0
	VSUBPS     Y8, Y0, Y0
	EXP8Y
	VMULPS     Y2, Y6, Y2
	VSUBPS     Y7, Y2, Y2
	VMASKMOVPS Y2, Y4, (DI)

s5done:
	VZEROUPPER
	RET
