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

// kernelTN8, kernelTN16 and kernelTN24 are C[0:R, cols] (+)= Σ over the
// rows p of the runs of A[p, 0:R]ᵀ ⊗ B[p, cols], R = 8, 16 or 24: the
// product Aᵀ·B over a long p, whose rows of A are read in place (lda
// apart, and they may overlap, as a patch matrix over a padded image
// does: WindowsT). A run (Run: three ints) is N rows from element A of a
// and element B of b on; the runs are one chain. Row r of C is one Z
// accumulator; each p loads B's row once (masked to cols, K1) and costs R
// FMAs, each with its A element broadcast from memory, so nothing is
// packed. Every element of C is the FMA chain over the runs' rows in
// order starting from zero (no run: zero), then added to C (add) or
// stored over it, as kernel8x16 gives for a k block of the transposed
// product. Registers: R10 = the run, R11 = runs left, R12 = a, R13 = b,
// AX/BX = the run's rows, CX = its rows left, R8 = lda, R9 = ldb, DI =
// c, DX = ldc (bytes); Z31 is B's row.
//
// kernelTNP8, kernelTNP16 and kernelTNP24 are the same for C of at most 8
// columns, two rows to a Z register: lane 2o+t of accumulator j is
// C[2j+t, o]. Each p spreads B's row to [b0 b0 b1 b1 … b7 b7] (tnDup),
// and each pair a[p, 2j:2j+2] is one 64-bit broadcast, so a p costs R/2
// FMAs instead of R: kernelTN at 8 columns filled half its lanes. Each
// element is still the FMA chain over p in order, so the bits are
// kernelTN's. At the end even lanes (row 2j) and odd lanes (row 2j+1)
// are gathered into the low lanes (tnEven, tnOdd) and stored as kernelTN
// stores. Z30 is tnDup, Z24-Z27 the broadcasts.

DATA tnDup<>+0(SB)/8, $0x0000000000000000
DATA tnDup<>+8(SB)/8, $0x0000000100000001
DATA tnDup<>+16(SB)/8, $0x0000000200000002
DATA tnDup<>+24(SB)/8, $0x0000000300000003
DATA tnDup<>+32(SB)/8, $0x0000000400000004
DATA tnDup<>+40(SB)/8, $0x0000000500000005
DATA tnDup<>+48(SB)/8, $0x0000000600000006
DATA tnDup<>+56(SB)/8, $0x0000000700000007
GLOBL tnDup<>(SB), RODATA|NOPTR, $64

DATA tnEven<>+0(SB)/8, $0x0000000200000000
DATA tnEven<>+8(SB)/8, $0x0000000600000004
DATA tnEven<>+16(SB)/8, $0x0000000a00000008
DATA tnEven<>+24(SB)/8, $0x0000000e0000000c
DATA tnEven<>+32(SB)/8, $0x0000000200000000
DATA tnEven<>+40(SB)/8, $0x0000000600000004
DATA tnEven<>+48(SB)/8, $0x0000000a00000008
DATA tnEven<>+56(SB)/8, $0x0000000e0000000c
GLOBL tnEven<>(SB), RODATA|NOPTR, $64

DATA tnOdd<>+0(SB)/8, $0x0000000300000001
DATA tnOdd<>+8(SB)/8, $0x0000000700000005
DATA tnOdd<>+16(SB)/8, $0x0000000b00000009
DATA tnOdd<>+24(SB)/8, $0x0000000f0000000d
DATA tnOdd<>+32(SB)/8, $0x0000000300000001
DATA tnOdd<>+40(SB)/8, $0x0000000700000005
DATA tnOdd<>+48(SB)/8, $0x0000000b00000009
DATA tnOdd<>+56(SB)/8, $0x0000000f0000000d
GLOBL tnOdd<>(SB), RODATA|NOPTR, $64

#define TNSTEP0 \
	VFMADD231PS.BCST 0(AX), Z31, Z0 \
	VFMADD231PS.BCST 4(AX), Z31, Z1 \
	VFMADD231PS.BCST 8(AX), Z31, Z2 \
	VFMADD231PS.BCST 12(AX), Z31, Z3 \
	VFMADD231PS.BCST 16(AX), Z31, Z4 \
	VFMADD231PS.BCST 20(AX), Z31, Z5 \
	VFMADD231PS.BCST 24(AX), Z31, Z6 \
	VFMADD231PS.BCST 28(AX), Z31, Z7

#define TNZERO0 \
	VPXORD Z0, Z0, Z0 \
	VPXORD Z1, Z1, Z1 \
	VPXORD Z2, Z2, Z2 \
	VPXORD Z3, Z3, Z3 \
	VPXORD Z4, Z4, Z4 \
	VPXORD Z5, Z5, Z5 \
	VPXORD Z6, Z6, Z6 \
	VPXORD Z7, Z7, Z7

#define TNADD0 \
	ROW16ADD(Z0) \
	ROW16ADD(Z1) \
	ROW16ADD(Z2) \
	ROW16ADD(Z3) \
	ROW16ADD(Z4) \
	ROW16ADD(Z5) \
	ROW16ADD(Z6) \
	ROW16ADD(Z7)

#define TNSET0 \
	ROW16SET(Z0) \
	ROW16SET(Z1) \
	ROW16SET(Z2) \
	ROW16SET(Z3) \
	ROW16SET(Z4) \
	ROW16SET(Z5) \
	ROW16SET(Z6) \
	ROW16SET(Z7)

#define TNPSTEP0 \
	VBROADCASTSD 0(AX), Z24 \
	VFMADD231PS  Z31, Z24, Z0 \
	VBROADCASTSD 8(AX), Z25 \
	VFMADD231PS  Z31, Z25, Z1 \
	VBROADCASTSD 16(AX), Z26 \
	VFMADD231PS  Z31, Z26, Z2 \
	VBROADCASTSD 24(AX), Z27 \
	VFMADD231PS  Z31, Z27, Z3

#define TNPZERO0 \
	VPXORD Z0, Z0, Z0 \
	VPXORD Z1, Z1, Z1 \
	VPXORD Z2, Z2, Z2 \
	VPXORD Z3, Z3, Z3

#define TNPADD0 \
	VPERMPS Z0, Z28, Z26 \
	VPERMPS Z0, Z29, Z27 \
	ROW16ADD(Z26) \
	ROW16ADD(Z27) \
	VPERMPS Z1, Z28, Z26 \
	VPERMPS Z1, Z29, Z27 \
	ROW16ADD(Z26) \
	ROW16ADD(Z27) \
	VPERMPS Z2, Z28, Z26 \
	VPERMPS Z2, Z29, Z27 \
	ROW16ADD(Z26) \
	ROW16ADD(Z27) \
	VPERMPS Z3, Z28, Z26 \
	VPERMPS Z3, Z29, Z27 \
	ROW16ADD(Z26) \
	ROW16ADD(Z27)

#define TNPSET0 \
	VPERMPS Z0, Z28, Z26 \
	VPERMPS Z0, Z29, Z27 \
	ROW16SET(Z26) \
	ROW16SET(Z27) \
	VPERMPS Z1, Z28, Z26 \
	VPERMPS Z1, Z29, Z27 \
	ROW16SET(Z26) \
	ROW16SET(Z27) \
	VPERMPS Z2, Z28, Z26 \
	VPERMPS Z2, Z29, Z27 \
	ROW16SET(Z26) \
	ROW16SET(Z27) \
	VPERMPS Z3, Z28, Z26 \
	VPERMPS Z3, Z29, Z27 \
	ROW16SET(Z26) \
	ROW16SET(Z27)

#define TNSTEP1 \
	VFMADD231PS.BCST 32(AX), Z31, Z8 \
	VFMADD231PS.BCST 36(AX), Z31, Z9 \
	VFMADD231PS.BCST 40(AX), Z31, Z10 \
	VFMADD231PS.BCST 44(AX), Z31, Z11 \
	VFMADD231PS.BCST 48(AX), Z31, Z12 \
	VFMADD231PS.BCST 52(AX), Z31, Z13 \
	VFMADD231PS.BCST 56(AX), Z31, Z14 \
	VFMADD231PS.BCST 60(AX), Z31, Z15

#define TNZERO1 \
	VPXORD Z8, Z8, Z8 \
	VPXORD Z9, Z9, Z9 \
	VPXORD Z10, Z10, Z10 \
	VPXORD Z11, Z11, Z11 \
	VPXORD Z12, Z12, Z12 \
	VPXORD Z13, Z13, Z13 \
	VPXORD Z14, Z14, Z14 \
	VPXORD Z15, Z15, Z15

#define TNADD1 \
	ROW16ADD(Z8) \
	ROW16ADD(Z9) \
	ROW16ADD(Z10) \
	ROW16ADD(Z11) \
	ROW16ADD(Z12) \
	ROW16ADD(Z13) \
	ROW16ADD(Z14) \
	ROW16ADD(Z15)

#define TNSET1 \
	ROW16SET(Z8) \
	ROW16SET(Z9) \
	ROW16SET(Z10) \
	ROW16SET(Z11) \
	ROW16SET(Z12) \
	ROW16SET(Z13) \
	ROW16SET(Z14) \
	ROW16SET(Z15)

#define TNPSTEP1 \
	VBROADCASTSD 32(AX), Z24 \
	VFMADD231PS  Z31, Z24, Z4 \
	VBROADCASTSD 40(AX), Z25 \
	VFMADD231PS  Z31, Z25, Z5 \
	VBROADCASTSD 48(AX), Z26 \
	VFMADD231PS  Z31, Z26, Z6 \
	VBROADCASTSD 56(AX), Z27 \
	VFMADD231PS  Z31, Z27, Z7

#define TNPZERO1 \
	VPXORD Z4, Z4, Z4 \
	VPXORD Z5, Z5, Z5 \
	VPXORD Z6, Z6, Z6 \
	VPXORD Z7, Z7, Z7

#define TNPADD1 \
	VPERMPS Z4, Z28, Z26 \
	VPERMPS Z4, Z29, Z27 \
	ROW16ADD(Z26) \
	ROW16ADD(Z27) \
	VPERMPS Z5, Z28, Z26 \
	VPERMPS Z5, Z29, Z27 \
	ROW16ADD(Z26) \
	ROW16ADD(Z27) \
	VPERMPS Z6, Z28, Z26 \
	VPERMPS Z6, Z29, Z27 \
	ROW16ADD(Z26) \
	ROW16ADD(Z27) \
	VPERMPS Z7, Z28, Z26 \
	VPERMPS Z7, Z29, Z27 \
	ROW16ADD(Z26) \
	ROW16ADD(Z27)

#define TNPSET1 \
	VPERMPS Z4, Z28, Z26 \
	VPERMPS Z4, Z29, Z27 \
	ROW16SET(Z26) \
	ROW16SET(Z27) \
	VPERMPS Z5, Z28, Z26 \
	VPERMPS Z5, Z29, Z27 \
	ROW16SET(Z26) \
	ROW16SET(Z27) \
	VPERMPS Z6, Z28, Z26 \
	VPERMPS Z6, Z29, Z27 \
	ROW16SET(Z26) \
	ROW16SET(Z27) \
	VPERMPS Z7, Z28, Z26 \
	VPERMPS Z7, Z29, Z27 \
	ROW16SET(Z26) \
	ROW16SET(Z27)

#define TNSTEP2 \
	VFMADD231PS.BCST 64(AX), Z31, Z16 \
	VFMADD231PS.BCST 68(AX), Z31, Z17 \
	VFMADD231PS.BCST 72(AX), Z31, Z18 \
	VFMADD231PS.BCST 76(AX), Z31, Z19 \
	VFMADD231PS.BCST 80(AX), Z31, Z20 \
	VFMADD231PS.BCST 84(AX), Z31, Z21 \
	VFMADD231PS.BCST 88(AX), Z31, Z22 \
	VFMADD231PS.BCST 92(AX), Z31, Z23

#define TNZERO2 \
	VPXORD Z16, Z16, Z16 \
	VPXORD Z17, Z17, Z17 \
	VPXORD Z18, Z18, Z18 \
	VPXORD Z19, Z19, Z19 \
	VPXORD Z20, Z20, Z20 \
	VPXORD Z21, Z21, Z21 \
	VPXORD Z22, Z22, Z22 \
	VPXORD Z23, Z23, Z23

#define TNADD2 \
	ROW16ADD(Z16) \
	ROW16ADD(Z17) \
	ROW16ADD(Z18) \
	ROW16ADD(Z19) \
	ROW16ADD(Z20) \
	ROW16ADD(Z21) \
	ROW16ADD(Z22) \
	ROW16ADD(Z23)

#define TNSET2 \
	ROW16SET(Z16) \
	ROW16SET(Z17) \
	ROW16SET(Z18) \
	ROW16SET(Z19) \
	ROW16SET(Z20) \
	ROW16SET(Z21) \
	ROW16SET(Z22) \
	ROW16SET(Z23)

#define TNPSTEP2 \
	VBROADCASTSD 64(AX), Z24 \
	VFMADD231PS  Z31, Z24, Z8 \
	VBROADCASTSD 72(AX), Z25 \
	VFMADD231PS  Z31, Z25, Z9 \
	VBROADCASTSD 80(AX), Z26 \
	VFMADD231PS  Z31, Z26, Z10 \
	VBROADCASTSD 88(AX), Z27 \
	VFMADD231PS  Z31, Z27, Z11

#define TNPZERO2 \
	VPXORD Z8, Z8, Z8 \
	VPXORD Z9, Z9, Z9 \
	VPXORD Z10, Z10, Z10 \
	VPXORD Z11, Z11, Z11

#define TNPADD2 \
	VPERMPS Z8, Z28, Z26 \
	VPERMPS Z8, Z29, Z27 \
	ROW16ADD(Z26) \
	ROW16ADD(Z27) \
	VPERMPS Z9, Z28, Z26 \
	VPERMPS Z9, Z29, Z27 \
	ROW16ADD(Z26) \
	ROW16ADD(Z27) \
	VPERMPS Z10, Z28, Z26 \
	VPERMPS Z10, Z29, Z27 \
	ROW16ADD(Z26) \
	ROW16ADD(Z27) \
	VPERMPS Z11, Z28, Z26 \
	VPERMPS Z11, Z29, Z27 \
	ROW16ADD(Z26) \
	ROW16ADD(Z27)

#define TNPSET2 \
	VPERMPS Z8, Z28, Z26 \
	VPERMPS Z8, Z29, Z27 \
	ROW16SET(Z26) \
	ROW16SET(Z27) \
	VPERMPS Z9, Z28, Z26 \
	VPERMPS Z9, Z29, Z27 \
	ROW16SET(Z26) \
	ROW16SET(Z27) \
	VPERMPS Z10, Z28, Z26 \
	VPERMPS Z10, Z29, Z27 \
	ROW16SET(Z26) \
	ROW16SET(Z27) \
	VPERMPS Z11, Z28, Z26 \
	VPERMPS Z11, Z29, Z27 \
	ROW16SET(Z26) \
	ROW16SET(Z27)

// func kernelTN8(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16)
TEXT ·kernelTN8(SB), NOSPLIT, $0-68
	MOVQ  runs+0(FP), R10
	MOVQ  nruns+8(FP), R11
	MOVQ  a+16(FP), R12
	MOVQ  lda+24(FP), R8
	SHLQ  $2, R8
	MOVQ  b+32(FP), R13
	MOVQ  ldb+40(FP), R9
	SHLQ  $2, R9
	MOVQ  c+48(FP), DI
	MOVQ  ldc+56(FP), DX
	SHLQ  $2, DX
	KMOVW cols+66(FP), K1
	TNZERO0
	TESTQ R11, R11
	JZ    tn8store

tn8run:
	MOVQ 0(R10), AX
	LEAQ (R12)(AX*4), AX
	MOVQ 8(R10), BX
	LEAQ (R13)(BX*4), BX
	MOVQ 16(R10), CX

tn8loop:
	VMOVUPS.Z (BX), K1, Z31
	TNSTEP0
	ADDQ      R8, AX
	ADDQ      R9, BX
	DECQ      CX
	JNZ       tn8loop
	ADDQ      $24, R10
	DECQ      R11
	JNZ       tn8run

tn8store:
	MOVBLZX add+64(FP), SI
	TESTQ   SI, SI
	JZ      tn8set
	TNADD0
	VZEROUPPER
	RET

tn8set:
	TNSET0
	VZEROUPPER
	RET

// func kernelTN16(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16)
TEXT ·kernelTN16(SB), NOSPLIT, $0-68
	MOVQ  runs+0(FP), R10
	MOVQ  nruns+8(FP), R11
	MOVQ  a+16(FP), R12
	MOVQ  lda+24(FP), R8
	SHLQ  $2, R8
	MOVQ  b+32(FP), R13
	MOVQ  ldb+40(FP), R9
	SHLQ  $2, R9
	MOVQ  c+48(FP), DI
	MOVQ  ldc+56(FP), DX
	SHLQ  $2, DX
	KMOVW cols+66(FP), K1
	TNZERO0
	TNZERO1
	TESTQ R11, R11
	JZ    tn16store

tn16run:
	MOVQ 0(R10), AX
	LEAQ (R12)(AX*4), AX
	MOVQ 8(R10), BX
	LEAQ (R13)(BX*4), BX
	MOVQ 16(R10), CX

tn16loop:
	VMOVUPS.Z (BX), K1, Z31
	TNSTEP0
	TNSTEP1
	ADDQ      R8, AX
	ADDQ      R9, BX
	DECQ      CX
	JNZ       tn16loop
	ADDQ      $24, R10
	DECQ      R11
	JNZ       tn16run

tn16store:
	MOVBLZX add+64(FP), SI
	TESTQ   SI, SI
	JZ      tn16set
	TNADD0
	TNADD1
	VZEROUPPER
	RET

tn16set:
	TNSET0
	TNSET1
	VZEROUPPER
	RET

// func kernelTN24(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16)
TEXT ·kernelTN24(SB), NOSPLIT, $0-68
	MOVQ  runs+0(FP), R10
	MOVQ  nruns+8(FP), R11
	MOVQ  a+16(FP), R12
	MOVQ  lda+24(FP), R8
	SHLQ  $2, R8
	MOVQ  b+32(FP), R13
	MOVQ  ldb+40(FP), R9
	SHLQ  $2, R9
	MOVQ  c+48(FP), DI
	MOVQ  ldc+56(FP), DX
	SHLQ  $2, DX
	KMOVW cols+66(FP), K1
	TNZERO0
	TNZERO1
	TNZERO2
	TESTQ R11, R11
	JZ    tn24store

tn24run:
	MOVQ 0(R10), AX
	LEAQ (R12)(AX*4), AX
	MOVQ 8(R10), BX
	LEAQ (R13)(BX*4), BX
	MOVQ 16(R10), CX

tn24loop:
	VMOVUPS.Z (BX), K1, Z31
	TNSTEP0
	TNSTEP1
	TNSTEP2
	ADDQ      R8, AX
	ADDQ      R9, BX
	DECQ      CX
	JNZ       tn24loop
	ADDQ      $24, R10
	DECQ      R11
	JNZ       tn24run

tn24store:
	MOVBLZX add+64(FP), SI
	TESTQ   SI, SI
	JZ      tn24set
	TNADD0
	TNADD1
	TNADD2
	VZEROUPPER
	RET

tn24set:
	TNSET0
	TNSET1
	TNSET2
	VZEROUPPER
	RET

// func kernelTNP8(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16)
TEXT ·kernelTNP8(SB), NOSPLIT, $0-68
	MOVQ  runs+0(FP), R10
	MOVQ  nruns+8(FP), R11
	MOVQ  a+16(FP), R12
	MOVQ  lda+24(FP), R8
	SHLQ  $2, R8
	MOVQ  b+32(FP), R13
	MOVQ  ldb+40(FP), R9
	SHLQ  $2, R9
	MOVQ  c+48(FP), DI
	MOVQ  ldc+56(FP), DX
	SHLQ  $2, DX
	KMOVW cols+66(FP), K1
	VMOVUPS tnDup<>(SB), Z30
	TNPZERO0
	TESTQ R11, R11
	JZ    tnp8store

tnp8run:
	MOVQ 0(R10), AX
	LEAQ (R12)(AX*4), AX
	MOVQ 8(R10), BX
	LEAQ (R13)(BX*4), BX
	MOVQ 16(R10), CX

tnp8loop:
	VMOVUPS.Z (BX), K1, Z31
	VPERMPS   Z31, Z30, Z31
	TNPSTEP0
	ADDQ      R8, AX
	ADDQ      R9, BX
	DECQ      CX
	JNZ       tnp8loop
	ADDQ      $24, R10
	DECQ      R11
	JNZ       tnp8run

tnp8store:
	VMOVUPS tnEven<>(SB), Z28
	VMOVUPS tnOdd<>(SB), Z29
	MOVBLZX add+64(FP), SI
	TESTQ   SI, SI
	JZ      tnp8set
	TNPADD0
	VZEROUPPER
	RET

tnp8set:
	TNPSET0
	VZEROUPPER
	RET

// func kernelTNP16(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16)
TEXT ·kernelTNP16(SB), NOSPLIT, $0-68
	MOVQ  runs+0(FP), R10
	MOVQ  nruns+8(FP), R11
	MOVQ  a+16(FP), R12
	MOVQ  lda+24(FP), R8
	SHLQ  $2, R8
	MOVQ  b+32(FP), R13
	MOVQ  ldb+40(FP), R9
	SHLQ  $2, R9
	MOVQ  c+48(FP), DI
	MOVQ  ldc+56(FP), DX
	SHLQ  $2, DX
	KMOVW cols+66(FP), K1
	VMOVUPS tnDup<>(SB), Z30
	TNPZERO0
	TNPZERO1
	TESTQ R11, R11
	JZ    tnp16store

tnp16run:
	MOVQ 0(R10), AX
	LEAQ (R12)(AX*4), AX
	MOVQ 8(R10), BX
	LEAQ (R13)(BX*4), BX
	MOVQ 16(R10), CX

tnp16loop:
	VMOVUPS.Z (BX), K1, Z31
	VPERMPS   Z31, Z30, Z31
	TNPSTEP0
	TNPSTEP1
	ADDQ      R8, AX
	ADDQ      R9, BX
	DECQ      CX
	JNZ       tnp16loop
	ADDQ      $24, R10
	DECQ      R11
	JNZ       tnp16run

tnp16store:
	VMOVUPS tnEven<>(SB), Z28
	VMOVUPS tnOdd<>(SB), Z29
	MOVBLZX add+64(FP), SI
	TESTQ   SI, SI
	JZ      tnp16set
	TNPADD0
	TNPADD1
	VZEROUPPER
	RET

tnp16set:
	TNPSET0
	TNPSET1
	VZEROUPPER
	RET

// func kernelTNP24(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16)
TEXT ·kernelTNP24(SB), NOSPLIT, $0-68
	MOVQ  runs+0(FP), R10
	MOVQ  nruns+8(FP), R11
	MOVQ  a+16(FP), R12
	MOVQ  lda+24(FP), R8
	SHLQ  $2, R8
	MOVQ  b+32(FP), R13
	MOVQ  ldb+40(FP), R9
	SHLQ  $2, R9
	MOVQ  c+48(FP), DI
	MOVQ  ldc+56(FP), DX
	SHLQ  $2, DX
	KMOVW cols+66(FP), K1
	VMOVUPS tnDup<>(SB), Z30
	TNPZERO0
	TNPZERO1
	TNPZERO2
	TESTQ R11, R11
	JZ    tnp24store

tnp24run:
	MOVQ 0(R10), AX
	LEAQ (R12)(AX*4), AX
	MOVQ 8(R10), BX
	LEAQ (R13)(BX*4), BX
	MOVQ 16(R10), CX

tnp24loop:
	VMOVUPS.Z (BX), K1, Z31
	VPERMPS   Z31, Z30, Z31
	TNPSTEP0
	TNPSTEP1
	TNPSTEP2
	ADDQ      R8, AX
	ADDQ      R9, BX
	DECQ      CX
	JNZ       tnp24loop
	ADDQ      $24, R10
	DECQ      R11
	JNZ       tnp24run

tnp24store:
	VMOVUPS tnEven<>(SB), Z28
	VMOVUPS tnOdd<>(SB), Z29
	MOVBLZX add+64(FP), SI
	TESTQ   SI, SI
	JZ      tnp24set
	TNPADD0
	TNPADD1
	TNPADD2
	VZEROUPPER
	RET

tnp24set:
	TNPSET0
	TNPSET1
	TNPSET2
	VZEROUPPER
	RET
