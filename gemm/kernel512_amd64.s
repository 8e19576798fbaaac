//go:build amd64 && !purego

#include "textflag.h"

// kernel8x32 is kernel6x16 (kernel_amd64.s) in 512-bit registers:
// C[0:8, 0:32] (+)= alpha · A[0:8, 0:kc] · Bp[0:kc, 0:32] in sixteen Z
// accumulators, two per row. Each p costs two B loads, eight broadcasts
// and sixteen FMAs, which two FMA ports finish in eight cycles while the
// loads fit the two load ports. Eight rows divide the trainer's row counts
// (32, 64, 256, 784, 1024), so A's row edge wastes nothing.
//
// Every element of C is the same FMA chain over p as in kernel6x16,
// starting from zero, then rounded times alpha, then added to C (add) or
// stored over it: the two kernels give the same bits. Only AVX-512F
// instructions are used (VPXORD zeroes, not VXORPS, which needs DQ).

// STEP32 does one p for eight rows: Z16, Z17 are B's row, Z18-Z25 the
// broadcasts; R8 = rsa, R9 = 3·rsa, R10 = 5·rsa, R13 = 7·rsa, R11 = csa,
// R12 = ldb, all in bytes.
#define STEP32 \
	VMOVUPS      (BX), Z16 \
	VMOVUPS      64(BX), Z17 \
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
	ADDQ         R12, BX

// ROW32ADD adds one row (two Z registers) to C at DI, ROW32SET stores it;
// both move DI on by DX.
#define ROW32ADD(za, zb) \
	VADDPS  (DI), za, za \
	VADDPS  64(DI), zb, zb \
	VMOVUPS za, (DI) \
	VMOVUPS zb, 64(DI) \
	ADDQ    DX, DI

#define ROW32SET(za, zb) \
	VMOVUPS za, (DI) \
	VMOVUPS zb, 64(DI) \
	ADDQ    DX, DI

#define SCALE32(z) VMULPS Z31, z, z

// SETUP512 loads the arguments of both kernels.
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

// func kernel8x32(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool)
//
// C's 8×32 block (two cache lines a row) is prefetched first: the store
// comes kc FMA steps later, by when the lines are in L1. At the big
// shapes C does not fit L2 (1024×2048 floats is 8 MiB) and each k block
// adds into it again, so without the prefetch every block's store waited
// for memory: 1024×512×2048 ran at 85-87% of OpenBLAS, with it 97-101%.
// A prefetch changes no arithmetic, so the bits are the same.
TEXT ·kernel8x32(SB), NOSPLIT, $0-69
	SETUP512
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
	STEP32
	STEP32
	STEP32
	STEP32
	DECQ SI
	JNZ  loop4

tail:
	TESTQ CX, CX
	JZ    store

loop1:
	STEP32
	DECQ CX
	JNZ  loop1

store:
	VBROADCASTSS alpha+64(FP), Z31
	SCALE32(Z0)
	SCALE32(Z1)
	SCALE32(Z2)
	SCALE32(Z3)
	SCALE32(Z4)
	SCALE32(Z5)
	SCALE32(Z6)
	SCALE32(Z7)
	SCALE32(Z8)
	SCALE32(Z9)
	SCALE32(Z10)
	SCALE32(Z11)
	SCALE32(Z12)
	SCALE32(Z13)
	SCALE32(Z14)
	SCALE32(Z15)
	MOVBLZX      add+68(FP), SI
	TESTQ        SI, SI
	JZ           set
	ROW32ADD(Z0, Z1)
	ROW32ADD(Z2, Z3)
	ROW32ADD(Z4, Z5)
	ROW32ADD(Z6, Z7)
	ROW32ADD(Z8, Z9)
	ROW32ADD(Z10, Z11)
	ROW32ADD(Z12, Z13)
	ROW32ADD(Z14, Z15)
	VZEROUPPER
	RET

set:
	ROW32SET(Z0, Z1)
	ROW32SET(Z2, Z3)
	ROW32SET(Z4, Z5)
	ROW32SET(Z6, Z7)
	ROW32SET(Z8, Z9)
	ROW32SET(Z10, Z11)
	ROW32SET(Z12, Z13)
	ROW32SET(Z14, Z15)
	VZEROUPPER
	RET

// kernel8x16 is kernel8x32 for a last panel of at most 16 columns: one Z
// accumulator per row, the same FMA chain per element. It reads the
// columns in the mask cols (K1) of each B row at stride ldb, so it runs on
// 32-wide packed panels as they are and on a B of fewer than 16 columns
// read in place, and reads and writes only those columns of C: C's last
// columns need no edge copy, and the masked-off lanes of the loads are not
// read, so they cannot fault.

// STEP16 does one p for eight rows: Z16 is B's row, Z18-Z25 the
// broadcasts; registers as in STEP32.
#define STEP16 \
	VMOVUPS.Z    (BX), K1, Z16 \
	VBROADCASTSS (AX), Z18 \
	VFMADD231PS  Z16, Z18, Z0 \
	VBROADCASTSS (AX)(R8*1), Z19 \
	VFMADD231PS  Z16, Z19, Z1 \
	VBROADCASTSS (AX)(R8*2), Z20 \
	VFMADD231PS  Z16, Z20, Z2 \
	VBROADCASTSS (AX)(R9*1), Z21 \
	VFMADD231PS  Z16, Z21, Z3 \
	VBROADCASTSS (AX)(R8*4), Z22 \
	VFMADD231PS  Z16, Z22, Z4 \
	VBROADCASTSS (AX)(R10*1), Z23 \
	VFMADD231PS  Z16, Z23, Z5 \
	VBROADCASTSS (AX)(R9*2), Z24 \
	VFMADD231PS  Z16, Z24, Z6 \
	VBROADCASTSS (AX)(R13*1), Z25 \
	VFMADD231PS  Z16, Z25, Z7 \
	ADDQ         R11, AX \
	ADDQ         R12, BX

#define ROW16ADD(z) \
	VADDPS  (DI), z, K1, z \
	VMOVUPS z, K1, (DI) \
	ADDQ    DX, DI

#define ROW16SET(z) \
	VMOVUPS z, K1, (DI) \
	ADDQ    DX, DI

// func kernel8x16(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool, cols uint16)
TEXT ·kernel8x16(SB), NOSPLIT, $0-72
	SETUP512
	KMOVW  cols+70(FP), K1
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	TESTQ  SI, SI
	JZ     tail

loop4:
	STEP16
	STEP16
	STEP16
	STEP16
	DECQ SI
	JNZ  loop4

tail:
	TESTQ CX, CX
	JZ    store

loop1:
	STEP16
	DECQ CX
	JNZ  loop1

store:
	VBROADCASTSS alpha+64(FP), Z31
	SCALE32(Z0)
	SCALE32(Z1)
	SCALE32(Z2)
	SCALE32(Z3)
	SCALE32(Z4)
	SCALE32(Z5)
	SCALE32(Z6)
	SCALE32(Z7)
	MOVBLZX      add+68(FP), SI
	TESTQ        SI, SI
	JZ           set
	ROW16ADD(Z0)
	ROW16ADD(Z1)
	ROW16ADD(Z2)
	ROW16ADD(Z3)
	ROW16ADD(Z4)
	ROW16ADD(Z5)
	ROW16ADD(Z6)
	ROW16ADD(Z7)
	VZEROUPPER
	RET

set:
	ROW16SET(Z0)
	ROW16SET(Z1)
	ROW16SET(Z2)
	ROW16SET(Z3)
	ROW16SET(Z4)
	ROW16SET(Z5)
	ROW16SET(Z6)
	ROW16SET(Z7)
	VZEROUPPER
	RET

// kernel8x16seg is kernel8x16 over nseg segments of kc values of each A
// row: after a segment's kc steps A moves on by ajump more elements (the
// gap to the next segment), B goes on with its next rows. Each element of
// C is one FMA chain over the nseg·kc terms in order, as kernel8x16 on
// the segments laid end to end gives.
// func kernel8x16seg(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool, cols uint16, nseg, ajump int)
TEXT ·kernel8x16seg(SB), NOSPLIT, $16-88
	MOVQ   nseg+72(FP), SI
	MOVQ   SI, segs-8(SP)
	MOVQ   ajump+80(FP), SI
	SHLQ   $2, SI
	MOVQ   SI, jump-16(SP)
	SETUP512
	KMOVW  cols+70(FP), K1
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

seg:
	TESTQ SI, SI
	JZ    segtail

segloop4:
	STEP16
	STEP16
	STEP16
	STEP16
	DECQ SI
	JNZ  segloop4

segtail:
	TESTQ CX, CX
	JZ    segend

segloop1:
	STEP16
	DECQ CX
	JNZ  segloop1

segend:
	ADDQ jump-16(SP), AX
	DECQ segs-8(SP)
	JZ   segstore
	MOVQ kc+0(FP), CX
	MOVQ CX, SI
	SHRQ $2, SI
	ANDQ $3, CX
	JMP  seg

segstore:
	VBROADCASTSS alpha+64(FP), Z31
	SCALE32(Z0)
	SCALE32(Z1)
	SCALE32(Z2)
	SCALE32(Z3)
	SCALE32(Z4)
	SCALE32(Z5)
	SCALE32(Z6)
	SCALE32(Z7)
	MOVBLZX      add+68(FP), SI
	TESTQ        SI, SI
	JZ           segset
	ROW16ADD(Z0)
	ROW16ADD(Z1)
	ROW16ADD(Z2)
	ROW16ADD(Z3)
	ROW16ADD(Z4)
	ROW16ADD(Z5)
	ROW16ADD(Z6)
	ROW16ADD(Z7)
	VZEROUPPER
	RET

segset:
	ROW16SET(Z0)
	ROW16SET(Z1)
	ROW16SET(Z2)
	ROW16SET(Z3)
	ROW16SET(Z4)
	ROW16SET(Z5)
	ROW16SET(Z6)
	ROW16SET(Z7)
	VZEROUPPER
	RET
