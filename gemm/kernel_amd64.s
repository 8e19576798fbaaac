//go:build amd64 && !purego

#include "textflag.h"

// The micro-kernels: C[0:6, 0:w] (+)= alpha · A[0:6, 0:kc] · Bp[0:kc, 0:w],
// w = 16 float32 or 8 float64 columns, held in twelve Y accumulators
// (two per row). Element (i, p) of A is at a + (i·rsa + p·csa) elements,
// so A is read in place whatever its layout; row p of B is at b + p·ldb
// elements (a packed panel has ldb = w). Each p costs two B loads, six
// broadcasts and twelve FMAs; the loop is unrolled four times.
//
// add = false stores alpha·AB over C (C is not read: beta = 0 ignores NaN
// in C); add = true adds alpha·AB to C. The alpha product is rounded
// before the add, as the Go edge code in sgemm.go does it.

// STEP does one p for six rows: Y12, Y13 are B's row, Y14/Y15 the
// broadcasts; R8 = rsa, R9 = 3·rsa, R10 = 5·rsa, R11 = csa, R12 = ldb in
// bytes.
#define STEP(BCAST, FMA) \
	VMOVUPS (BX), Y12 \
	VMOVUPS 32(BX), Y13 \
	BCAST (AX), Y14 \
	FMA   Y12, Y14, Y0 \
	FMA   Y13, Y14, Y1 \
	BCAST (AX)(R8*1), Y15 \
	FMA   Y12, Y15, Y2 \
	FMA   Y13, Y15, Y3 \
	BCAST (AX)(R8*2), Y14 \
	FMA   Y12, Y14, Y4 \
	FMA   Y13, Y14, Y5 \
	BCAST (AX)(R9*1), Y15 \
	FMA   Y12, Y15, Y6 \
	FMA   Y13, Y15, Y7 \
	BCAST (AX)(R8*4), Y14 \
	FMA   Y12, Y14, Y8 \
	FMA   Y13, Y14, Y9 \
	BCAST (AX)(R10*1), Y15 \
	FMA   Y12, Y15, Y10 \
	FMA   Y13, Y15, Y11 \
	ADDQ  R11, AX \
	ADDQ  R12, BX

// ROW writes one row of C (two Y registers) at DI and moves DI on by DX.
#define ROWADD(ADD, ya, yb) \
	ADD     (DI), ya, ya \
	ADD     32(DI), yb, yb \
	VMOVUPS ya, (DI) \
	VMOVUPS yb, 32(DI) \
	ADDQ    DX, DI

#define ROWSET(ya, yb) \
	VMOVUPS ya, (DI) \
	VMOVUPS yb, 32(DI) \
	ADDQ    DX, DI

#define ZERO \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7 \
	VXORPS Y8, Y8, Y8 \
	VXORPS Y9, Y9, Y9 \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11

#define SCALE(MUL) \
	MUL Y15, Y0, Y0 \
	MUL Y15, Y1, Y1 \
	MUL Y15, Y2, Y2 \
	MUL Y15, Y3, Y3 \
	MUL Y15, Y4, Y4 \
	MUL Y15, Y5, Y5 \
	MUL Y15, Y6, Y6 \
	MUL Y15, Y7, Y7 \
	MUL Y15, Y8, Y8 \
	MUL Y15, Y9, Y9 \
	MUL Y15, Y10, Y10 \
	MUL Y15, Y11, Y11

// SETUP loads the arguments common to both kernels; shift is log2 of the
// element size.
#define SETUP(shift) \
	MOVQ kc+0(FP), CX \
	MOVQ a+8(FP), AX \
	MOVQ rsa+16(FP), R8 \
	SHLQ $shift, R8 \
	MOVQ csa+24(FP), R11 \
	SHLQ $shift, R11 \
	MOVQ b+32(FP), BX \
	MOVQ ldb+40(FP), R12 \
	SHLQ $shift, R12 \
	LEAQ (R8)(R8*2), R9 \
	LEAQ (R8)(R8*4), R10 \
	MOVQ c+48(FP), DI \
	MOVQ ldc+56(FP), DX \
	SHLQ $shift, DX \
	ZERO \
	MOVQ CX, SI \
	SHRQ $2, SI \
	ANDQ $3, CX

// func kernel6x16(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool)
TEXT ·kernel6x16(SB), NOSPLIT, $0-69
	SETUP(2)
	TESTQ SI, SI
	JZ    s_tail

s_loop4:
	STEP(VBROADCASTSS, VFMADD231PS)
	STEP(VBROADCASTSS, VFMADD231PS)
	STEP(VBROADCASTSS, VFMADD231PS)
	STEP(VBROADCASTSS, VFMADD231PS)
	DECQ SI
	JNZ  s_loop4

s_tail:
	TESTQ CX, CX
	JZ    s_store

s_loop1:
	STEP(VBROADCASTSS, VFMADD231PS)
	DECQ CX
	JNZ  s_loop1

s_store:
	VBROADCASTSS alpha+64(FP), Y15
	SCALE(VMULPS)
	MOVBLZX      add+68(FP), SI
	TESTQ        SI, SI
	JZ           s_set
	ROWADD(VADDPS, Y0, Y1)
	ROWADD(VADDPS, Y2, Y3)
	ROWADD(VADDPS, Y4, Y5)
	ROWADD(VADDPS, Y6, Y7)
	ROWADD(VADDPS, Y8, Y9)
	ROWADD(VADDPS, Y10, Y11)
	VZEROUPPER
	RET

s_set:
	ROWSET(Y0, Y1)
	ROWSET(Y2, Y3)
	ROWSET(Y4, Y5)
	ROWSET(Y6, Y7)
	ROWSET(Y8, Y9)
	ROWSET(Y10, Y11)
	VZEROUPPER
	RET

// func kernel6x8(kc int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, alpha float64, add bool)
TEXT ·kernel6x8(SB), NOSPLIT, $0-73
	SETUP(3)
	TESTQ SI, SI
	JZ    d_tail

d_loop4:
	STEP(VBROADCASTSD, VFMADD231PD)
	STEP(VBROADCASTSD, VFMADD231PD)
	STEP(VBROADCASTSD, VFMADD231PD)
	STEP(VBROADCASTSD, VFMADD231PD)
	DECQ SI
	JNZ  d_loop4

d_tail:
	TESTQ CX, CX
	JZ    d_store

d_loop1:
	STEP(VBROADCASTSD, VFMADD231PD)
	DECQ CX
	JNZ  d_loop1

d_store:
	VBROADCASTSD alpha+64(FP), Y15
	SCALE(VMULPD)
	MOVBLZX      add+72(FP), SI
	TESTQ        SI, SI
	JZ           d_set
	ROWADD(VADDPD, Y0, Y1)
	ROWADD(VADDPD, Y2, Y3)
	ROWADD(VADDPD, Y4, Y5)
	ROWADD(VADDPD, Y6, Y7)
	ROWADD(VADDPD, Y8, Y9)
	ROWADD(VADDPD, Y10, Y11)
	VZEROUPPER
	RET

d_set:
	ROWSET(Y0, Y1)
	ROWSET(Y2, Y3)
	ROWSET(Y4, Y5)
	ROWSET(Y6, Y7)
	ROWSET(Y8, Y9)
	ROWSET(Y10, Y11)
	VZEROUPPER
	RET
