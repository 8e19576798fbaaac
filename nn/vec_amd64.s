//go:build amd64 && !purego

#include "textflag.h"

// AVX2/FMA kernels for the trainer's float32 elementwise loops (softmax,
// log-sum-exp, bias, Adam); vec_amd64.go says which Go loop each replaces.
// exp is a float32 polynomial (see EXP8) accurate to about one ulp; the
// other kernels do the Go loop's own operations lane-wise, so their
// elements are bit-identical to it and only sums differ in order.

DATA expHi<>+0(SB)/4, $0x42b1999a    // 88.8: above it exp overflows anyway
GLOBL expHi<>(SB), RODATA|NOPTR, $4
DATA expLo<>+0(SB)/4, $0xc2d00000    // -104: below it exp rounds to 0
GLOBL expLo<>(SB), RODATA|NOPTR, $4
DATA expLog2e<>+0(SB)/4, $0x3fb8aa3b // log2(e)
GLOBL expLog2e<>(SB), RODATA|NOPTR, $4
DATA expLn2Hi<>+0(SB)/4, $0x3f317218 // float32(ln 2)
GLOBL expLn2Hi<>(SB), RODATA|NOPTR, $4
DATA expLn2Lo<>+0(SB)/4, $0xb102e308 // ln 2 - float32(ln 2)
GLOBL expLn2Lo<>(SB), RODATA|NOPTR, $4
DATA expC2<>+0(SB)/4, $0x3f000000    // 1/2!
GLOBL expC2<>(SB), RODATA|NOPTR, $4
DATA expC3<>+0(SB)/4, $0x3e2aaaab    // 1/3!
GLOBL expC3<>(SB), RODATA|NOPTR, $4
DATA expC4<>+0(SB)/4, $0x3d2aaaab    // 1/4!
GLOBL expC4<>(SB), RODATA|NOPTR, $4
DATA expC5<>+0(SB)/4, $0x3c088889    // 1/5!
GLOBL expC5<>(SB), RODATA|NOPTR, $4
DATA expC6<>+0(SB)/4, $0x3ab60b61    // 1/6!
GLOBL expC6<>(SB), RODATA|NOPTR, $4
DATA expC7<>+0(SB)/4, $0x39500d01    // 1/7!
GLOBL expC7<>(SB), RODATA|NOPTR, $4
DATA expOne<>+0(SB)/4, $0x3f800000   // 1.0
GLOBL expOne<>(SB), RODATA|NOPTR, $4
DATA expBias<>+0(SB)/4, $127         // float32 exponent bias
GLOBL expBias<>(SB), RODATA|NOPTR, $4
DATA negInf<>+0(SB)/4, $0xff800000   // -Inf
GLOBL negInf<>(SB), RODATA|NOPTR, $4

// lanes is 0..7, compared with a remaining count to build a tail mask.
DATA lanes<>+0(SB)/4, $0
DATA lanes<>+4(SB)/4, $1
DATA lanes<>+8(SB)/4, $2
DATA lanes<>+12(SB)/4, $3
DATA lanes<>+16(SB)/4, $4
DATA lanes<>+20(SB)/4, $5
DATA lanes<>+24(SB)/4, $6
DATA lanes<>+28(SB)/4, $7
GLOBL lanes<>(SB), RODATA|NOPTR, $32

// TAILMASK sets Y4 to all-ones in the lanes below CX (1..7) and zero above.
#define TAILMASK \
	MOVL         CX, AX; \
	VMOVD        AX, X4; \
	VPBROADCASTD X4, Y4; \
	VMOVDQU      lanes<>(SB), Y5; \
	VPCMPGTD     Y5, Y4, Y4

// EXPCONST loads the constants EXP8 keeps in registers.
#define EXPCONST \
	VBROADCASTSS expHi<>(SB), Y9; \
	VBROADCASTSS expLo<>(SB), Y10; \
	VBROADCASTSS expLog2e<>(SB), Y11; \
	VBROADCASTSS expLn2Hi<>(SB), Y12; \
	VBROADCASTSS expLn2Lo<>(SB), Y13; \
	VPBROADCASTD expBias<>(SB), Y14; \
	VBROADCASTSS expOne<>(SB), Y15

// EXP8 sets Y2 = exp(Y0) in eight lanes (Y0, Y1, Y3, Y5 are clobbered).
// x is clamped to [-104, 88.8] (the min/max operand order keeps a NaN),
// split as x = n·ln2 + r with |r| ≤ ln2/2 (n rounded to nearest, r by two
// FMAs with ln 2 in two parts), e^r is the degree-7 Taylor polynomial (its
// truncation error, 5e-9 relative, is far below float32's 6e-8), and 2^n
// is applied as 2^(n>>1)·2^(n-(n>>1)): both factors are normal numbers for
// every n in [-150, 128], so overflow gives +Inf and a subnormal result is
// rounded once.
#define EXP8 \
	VMINPS       Y0, Y9, Y0; \
	VMAXPS       Y0, Y10, Y0; \
	VMULPS       Y11, Y0, Y1; \
	VROUNDPS     $0, Y1, Y1; \
	VFNMADD231PS Y1, Y12, Y0; \
	VFNMADD231PS Y1, Y13, Y0; \
	VBROADCASTSS expC7<>(SB), Y2; \
	VBROADCASTSS expC6<>(SB), Y5; \
	VFMADD213PS  Y5, Y0, Y2; \
	VBROADCASTSS expC5<>(SB), Y5; \
	VFMADD213PS  Y5, Y0, Y2; \
	VBROADCASTSS expC4<>(SB), Y5; \
	VFMADD213PS  Y5, Y0, Y2; \
	VBROADCASTSS expC3<>(SB), Y5; \
	VFMADD213PS  Y5, Y0, Y2; \
	VBROADCASTSS expC2<>(SB), Y5; \
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

// SUM8 adds the eight float32 lanes of Y2 to the float64 sums Y6, Y7.
#define SUM8 \
	VCVTPS2PD    X2, Y3; \
	VEXTRACTF128 $1, Y2, X1; \
	VCVTPS2PD    X1, Y1; \
	VADDPD       Y3, Y6, Y6; \
	VADDPD       Y1, Y7, Y7

// func expShiftSum32AVX(x, y []float32, s float32) float64
// y[i] = exp(x[i]-s) for every i (no store when len(y) is 0; y may be x),
// and the float64 sum of those values.
TEXT ·expShiftSum32AVX(SB), NOSPLIT, $0-64
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         y_base+24(FP), DI
	MOVQ         y_len+32(FP), DX
	VBROADCASTSS s+48(FP), Y8
	EXPCONST
	VXORPD       Y6, Y6, Y6
	VXORPD       Y7, Y7, Y7
	MOVQ         CX, BX
	SHRQ         $3, BX
	JZ           exptail

exploop:
	VMOVUPS (SI), Y0
	VSUBPS  Y8, Y0, Y0
	EXP8
	TESTQ   DX, DX
	JZ      expnostore
	VMOVUPS Y2, (DI)
	ADDQ    $32, DI

expnostore:
	SUM8
	ADDQ $32, SI
	DECQ BX
	JNZ  exploop

exptail:
	ANDQ $7, CX
	JZ   expdone
	TAILMASK
	VMASKMOVPS (SI), Y4, Y0
	VSUBPS     Y8, Y0, Y0
	EXP8
	VANDPS     Y4, Y2, Y2
	TESTQ      DX, DX
	JZ         exptailsum
	VMASKMOVPS Y2, Y4, (DI)

exptailsum:
	SUM8

expdone:
	VADDPD       Y7, Y6, Y6
	VEXTRACTF128 $1, Y6, X7
	VADDPD       X7, X6, X6
	VUNPCKHPD    X6, X6, X7
	VADDSD       X7, X6, X6
	VZEROUPPER
	MOVSD        X6, ret+56(FP)
	RET

// func max32AVX(x []float32) float32
// The largest element, -Inf when x is empty. A NaN may or may not win
// (VMAXPS returns its second operand when one is NaN); the callers use the
// max only as a shift for exp, whose outputs are NaN for a NaN input anyway.
TEXT ·max32AVX(SB), NOSPLIT, $0-28
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSS negInf<>(SB), Y0
	VMOVAPS      Y0, Y1
	VMOVAPS      Y0, Y6
	MOVQ         CX, BX
	SHRQ         $4, BX
	JZ           max8

maxloop:
	VMAXPS (SI), Y0, Y0
	VMAXPS 32(SI), Y1, Y1
	ADDQ   $64, SI
	DECQ   BX
	JNZ    maxloop

max8:
	TESTQ $8, CX
	JZ    maxtail
	VMAXPS (SI), Y0, Y0
	ADDQ   $32, SI

maxtail:
	ANDQ $7, CX
	JZ   maxdone
	TAILMASK
	VMASKMOVPS (SI), Y4, Y2
	VANDNPS    Y6, Y4, Y3
	VORPS      Y3, Y2, Y2
	VMAXPS     Y2, Y1, Y1

maxdone:
	VMAXPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0x4e, X0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VMAXPS       X1, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// func expScaleSub32AVX(x, y []float32, s, a, b float32)
// y[i] = exp(x[i]-s)*a - b for every i: expShiftSum32AVX's exp rounded to
// float32, then scaleSub32AVX's product and difference (no FMA), in one
// pass instead of three (the cross-entropy's backward, whose sum the
// forward took). b = 0 gives scale32AVX's product (e·a − 0 is e·a).
// len(y) ≥ len(x); y may be x.
TEXT ·expScaleSub32AVX(SB), NOSPLIT, $0-60
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         y_base+24(FP), DI
	VBROADCASTSS s+48(FP), Y8
	VBROADCASTSS a+52(FP), Y6
	VBROADCASTSS b+56(FP), Y7
	EXPCONST
	MOVQ         CX, BX
	SHRQ         $3, BX
	JZ           esstail

essloop:
	VMOVUPS (SI), Y0
	VSUBPS  Y8, Y0, Y0
	EXP8
	VMULPS  Y2, Y6, Y2
	VSUBPS  Y7, Y2, Y2
	VMOVUPS Y2, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    BX
	JNZ     essloop

esstail:
	ANDQ $7, CX
	JZ   essdone
	TAILMASK
	VMASKMOVPS (SI), Y4, Y0
	VSUBPS     Y8, Y0, Y0
	EXP8
	VMULPS     Y2, Y6, Y2
	VSUBPS     Y7, Y2, Y2
	VMASKMOVPS Y2, Y4, (DI)

essdone:
	VZEROUPPER
	RET
