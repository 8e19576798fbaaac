//go:build amd64 && !purego

#include "textflag.h"

// kernel8x32p is kernel8x32 (kernel512_amd64.s) reading B in place, at
// its row stride ldb, and storing each row of the 8×32 block's B, as it
// loads it, to pk: the packed panel (kc rows of 32) that the other row
// blocks of A then read. Packing B as a pass of its own read every panel
// from memory or L3 at an 8 KiB stride with nothing to hide the wait
// behind (5-7% of the word LM's step at d 512); here the two stores a p
// fit beside the sixteen FMAs, a prefetch eight rows ahead starts each
// row's lines early, and one into L2 of the row's next 128 bytes readies
// the next panel's call (the same rows, a row block of A later). The FMA chain of every element is kernel8x32's,
// and the stored values are B's own: the same bits as packing first.

#define STEP32P \
	VMOVUPS      (BX), Z16 \
	VMOVUPS      64(BX), Z17 \
	PREFETCHT0   (BX)(R12*8) \
	PREFETCHT0   64(BX)(R12*8) \
	PREFETCHT1   128(BX) \
	PREFETCHT1   192(BX) \
	VMOVUPS      Z16, (R14) \
	VMOVUPS      Z17, 64(R14) \
	VBROADCASTSS (AX), Z18 \
	VFMADD231PS  Z16, Z18, Z0 \
	VFMADD231PS  Z17, Z18, Z1 \
	VBROADCASTSS (AX)(R8*1), Z19 \
	VFMADD231PS  Z16, Z19, Z2 \
	VFMADD231PS  Z17, Z19, Z3 \
	VBROADCASTSS (AX)(R8*2), Z20 \
	VFMADD231PS  Z16, Z20, Z4 \
	VFMADD231PS  Z17, Z20, Z5 \
	VBROADCASTSS (AX)(R9*1), Z21 \
	VFMADD231PS  Z16, Z21, Z6 \
	VFMADD231PS  Z17, Z21, Z7 \
	VBROADCASTSS (AX)(R8*4), Z22 \
	VFMADD231PS  Z16, Z22, Z8 \
	VFMADD231PS  Z17, Z22, Z9 \
	VBROADCASTSS (AX)(R10*1), Z23 \
	VFMADD231PS  Z16, Z23, Z10 \
	VFMADD231PS  Z17, Z23, Z11 \
	VBROADCASTSS (AX)(R9*2), Z24 \
	VFMADD231PS  Z16, Z24, Z12 \
	VFMADD231PS  Z17, Z24, Z13 \
	VBROADCASTSS (AX)(R13*1), Z25 \
	VFMADD231PS  Z16, Z25, Z14 \
	VFMADD231PS  Z17, Z25, Z15 \
	ADDQ         R11, AX \
	ADDQ         R12, BX \
	ADDQ         $128, R14

#define ROW32ADDP(za, zb) \
	VADDPS  (DI), za, za \
	VADDPS  64(DI), zb, zb \
	VMOVUPS za, (DI) \
	VMOVUPS zb, 64(DI) \
	ADDQ    DX, DI

#define ROW32SETP(za, zb) \
	VMOVUPS za, (DI) \
	VMOVUPS zb, 64(DI) \
	ADDQ    DX, DI

#define SCALE32P(z) VMULPS Z31, z, z

// SETUP512 loads the arguments, as in kernel512_amd64.s.
#define SETUP512 \
	MOVQ kc+0(FP), CX \
	MOVQ a+8(FP), AX \
	MOVQ rsa+16(FP), R8 \
	SHLQ $2, R8 \
	MOVQ csa+24(FP), R11 \
	SHLQ $2, R11 \
	MOVQ b+32(FP), BX \
	MOVQ ldb+40(FP), R12 \
	SHLQ $2, R12 \
	LEAQ (R8)(R8*2), R9 \
	LEAQ (R8)(R8*4), R10 \
	LEAQ (R9)(R8*4), R13 \
	MOVQ c+48(FP), DI \
	MOVQ ldc+56(FP), DX \
	SHLQ $2, DX \
	MOVQ CX, SI \
	SHRQ $2, SI \
	ANDQ $3, CX

// func kernel8x32p(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool, pk *float32)
TEXT ·kernel8x32p(SB), NOSPLIT, $0-80
	SETUP512
	MOVQ pk+72(FP), R14
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	MOVQ       c+48(FP), DI
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	TESTQ  SI, SI
	JZ     tail

loop4:
	STEP32P
	STEP32P
	STEP32P
	STEP32P
	DECQ SI
	JNZ  loop4

tail:
	TESTQ CX, CX
	JZ    store

loop1:
	STEP32P
	DECQ CX
	JNZ  loop1

store:
	VBROADCASTSS alpha+64(FP), Z31
	SCALE32P(Z0)
	SCALE32P(Z1)
	SCALE32P(Z2)
	SCALE32P(Z3)
	SCALE32P(Z4)
	SCALE32P(Z5)
	SCALE32P(Z6)
	SCALE32P(Z7)
	SCALE32P(Z8)
	SCALE32P(Z9)
	SCALE32P(Z10)
	SCALE32P(Z11)
	SCALE32P(Z12)
	SCALE32P(Z13)
	SCALE32P(Z14)
	SCALE32P(Z15)
	MOVBLZX      add+68(FP), SI
	TESTQ        SI, SI
	JZ           set
	ROW32ADDP(Z0, Z1)
	ROW32ADDP(Z2, Z3)
	ROW32ADDP(Z4, Z5)
	ROW32ADDP(Z6, Z7)
	ROW32ADDP(Z8, Z9)
	ROW32ADDP(Z10, Z11)
	ROW32ADDP(Z12, Z13)
	ROW32ADDP(Z14, Z15)
	VZEROUPPER
	RET

set:
	ROW32SETP(Z0, Z1)
	ROW32SETP(Z2, Z3)
	ROW32SETP(Z4, Z5)
	ROW32SETP(Z6, Z7)
	ROW32SETP(Z8, Z9)
	ROW32SETP(Z10, Z11)
	ROW32SETP(Z12, Z13)
	ROW32SETP(Z14, Z15)
	VZEROUPPER
	RET


// kernel8x32a is kernel8x32 on a transposed A read in place (rsa = 1:
// the block's eight rows are eight neighbours for each p, at stride csa),
// storing them, as it loads them, to pk: the packed panel (element (i, p)
// at pk[p·8 + i]) that the later panels of B then read. The first panel's
// register blocks pack A that way instead of a pass of its own. The eight
// values are moved by a masked 512-bit load and store (K2 = 0xff), which
// need only AVX-512F. Besides a prefetch eight p ahead, each p prefetches
// into L2 the line 64 bytes on, which the register block two below reads
// next. The FMA chains are kernel8x32's: the same bits.

#define STEP32A \
	VMOVUPS      (BX), Z16 \
	VMOVUPS      64(BX), Z17 \
	VMOVUPS.Z    (AX), K2, Z26 \
	PREFETCHT0   (AX)(R11*8) \
	PREFETCHT1   64(AX) \
	VMOVUPS      Z26, K2, (R14) \
	VBROADCASTSS (AX), Z18 \
	VFMADD231PS  Z16, Z18, Z0 \
	VFMADD231PS  Z17, Z18, Z1 \
	VBROADCASTSS (AX)(R8*1), Z19 \
	VFMADD231PS  Z16, Z19, Z2 \
	VFMADD231PS  Z17, Z19, Z3 \
	VBROADCASTSS (AX)(R8*2), Z20 \
	VFMADD231PS  Z16, Z20, Z4 \
	VFMADD231PS  Z17, Z20, Z5 \
	VBROADCASTSS (AX)(R9*1), Z21 \
	VFMADD231PS  Z16, Z21, Z6 \
	VFMADD231PS  Z17, Z21, Z7 \
	VBROADCASTSS (AX)(R8*4), Z22 \
	VFMADD231PS  Z16, Z22, Z8 \
	VFMADD231PS  Z17, Z22, Z9 \
	VBROADCASTSS (AX)(R10*1), Z23 \
	VFMADD231PS  Z16, Z23, Z10 \
	VFMADD231PS  Z17, Z23, Z11 \
	VBROADCASTSS (AX)(R9*2), Z24 \
	VFMADD231PS  Z16, Z24, Z12 \
	VFMADD231PS  Z17, Z24, Z13 \
	VBROADCASTSS (AX)(R13*1), Z25 \
	VFMADD231PS  Z16, Z25, Z14 \
	VFMADD231PS  Z17, Z25, Z15 \
	ADDQ         R11, AX \
	ADDQ         R12, BX \
	ADDQ         $32, R14

// func kernel8x32a(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool, pk *float32)
TEXT ·kernel8x32a(SB), NOSPLIT, $0-80
	MOVL $0xff, CX
	KMOVW CX, K2
	SETUP512
	MOVQ pk+72(FP), R14
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	ADDQ       DX, DI
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	MOVQ       c+48(FP), DI
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	TESTQ  SI, SI
	JZ     tail

loop4:
	STEP32A
	STEP32A
	STEP32A
	STEP32A
	DECQ SI
	JNZ  loop4

tail:
	TESTQ CX, CX
	JZ    store

loop1:
	STEP32A
	DECQ CX
	JNZ  loop1

store:
	VBROADCASTSS alpha+64(FP), Z31
	SCALE32P(Z0)
	SCALE32P(Z1)
	SCALE32P(Z2)
	SCALE32P(Z3)
	SCALE32P(Z4)
	SCALE32P(Z5)
	SCALE32P(Z6)
	SCALE32P(Z7)
	SCALE32P(Z8)
	SCALE32P(Z9)
	SCALE32P(Z10)
	SCALE32P(Z11)
	SCALE32P(Z12)
	SCALE32P(Z13)
	SCALE32P(Z14)
	SCALE32P(Z15)
	MOVBLZX      add+68(FP), SI
	TESTQ        SI, SI
	JZ           set
	ROW32ADDP(Z0, Z1)
	ROW32ADDP(Z2, Z3)
	ROW32ADDP(Z4, Z5)
	ROW32ADDP(Z6, Z7)
	ROW32ADDP(Z8, Z9)
	ROW32ADDP(Z10, Z11)
	ROW32ADDP(Z12, Z13)
	ROW32ADDP(Z14, Z15)
	VZEROUPPER
	RET

set:
	ROW32SETP(Z0, Z1)
	ROW32SETP(Z2, Z3)
	ROW32SETP(Z4, Z5)
	ROW32SETP(Z6, Z7)
	ROW32SETP(Z8, Z9)
	ROW32SETP(Z10, Z11)
	ROW32SETP(Z12, Z13)
	ROW32SETP(Z14, Z15)
	VZEROUPPER
	RET

