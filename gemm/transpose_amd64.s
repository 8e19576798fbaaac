//go:build amd64 && !purego

#include "textflag.h"

// transpose16 packs a transposed B for the float32 kernels: rows (1 to 16)
// rows of B, at stride ldb, of blocks·16 elements each, become blocks·16
// rows of 16 elements at stride dstStride, element (p, r) of the result
// being element (r, p) of the source; rows past rows are zeros (a panel's
// zero padding). Each 16×16 block is loaded into sixteen Z registers and
// transposed in four rounds of shuffles (pairs, quads, then 128-bit lanes
// twice): 64 shuffles for 256 elements, where the Go loop did a scalar
// load and store per element. Only AVX-512F instructions are used. A
// transposition copies values without arithmetic: the packed panel holds
// the same bits as the Go loop's.
//
// func transpose16(dst *float32, dstStride int, src *float32, ldb, rows, blocks int)
TEXT ·transpose16(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), DX
	SHLQ $2, DX
	MOVQ src+16(FP), SI
	MOVQ ldb+24(FP), R8
	SHLQ $2, R8
	MOVQ rows+32(FP), R9
	MOVQ blocks+40(FP), CX
	TESTQ CX, CX
	JZ    done

block:
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
	MOVQ SI, R10
	VMOVUPS (R10), Z0
	CMPQ R9, $1
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z1
	CMPQ R9, $2
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z2
	CMPQ R9, $3
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z3
	CMPQ R9, $4
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z4
	CMPQ R9, $5
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z5
	CMPQ R9, $6
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z6
	CMPQ R9, $7
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z7
	CMPQ R9, $8
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z8
	CMPQ R9, $9
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z9
	CMPQ R9, $10
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z10
	CMPQ R9, $11
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z11
	CMPQ R9, $12
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z12
	CMPQ R9, $13
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z13
	CMPQ R9, $14
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z14
	CMPQ R9, $15
	JEQ  loaded
	ADDQ R8, R10
	VMOVUPS (R10), Z15

loaded:
	// pairs of rows: Z16+2i, Z17+2i interleave rows 2i and 2i+1
	VUNPCKLPS Z1, Z0, Z16
	VUNPCKHPS Z1, Z0, Z17
	VUNPCKLPS Z3, Z2, Z18
	VUNPCKHPS Z3, Z2, Z19
	VUNPCKLPS Z5, Z4, Z20
	VUNPCKHPS Z5, Z4, Z21
	VUNPCKLPS Z7, Z6, Z22
	VUNPCKHPS Z7, Z6, Z23
	VUNPCKLPS Z9, Z8, Z24
	VUNPCKHPS Z9, Z8, Z25
	VUNPCKLPS Z11, Z10, Z26
	VUNPCKHPS Z11, Z10, Z27
	VUNPCKLPS Z13, Z12, Z28
	VUNPCKHPS Z13, Z12, Z29
	VUNPCKLPS Z15, Z14, Z30
	VUNPCKHPS Z15, Z14, Z31
	// quads: Z0+4g+c holds column c+4L of rows 4g..4g+3 in 128-bit lane L
	VSHUFPS $0x44, Z18, Z16, Z0
	VSHUFPS $0xEE, Z18, Z16, Z1
	VSHUFPS $0x44, Z19, Z17, Z2
	VSHUFPS $0xEE, Z19, Z17, Z3
	VSHUFPS $0x44, Z22, Z20, Z4
	VSHUFPS $0xEE, Z22, Z20, Z5
	VSHUFPS $0x44, Z23, Z21, Z6
	VSHUFPS $0xEE, Z23, Z21, Z7
	VSHUFPS $0x44, Z26, Z24, Z8
	VSHUFPS $0xEE, Z26, Z24, Z9
	VSHUFPS $0x44, Z27, Z25, Z10
	VSHUFPS $0xEE, Z27, Z25, Z11
	VSHUFPS $0x44, Z30, Z28, Z12
	VSHUFPS $0xEE, Z30, Z28, Z13
	VSHUFPS $0x44, Z31, Z29, Z14
	VSHUFPS $0xEE, Z31, Z29, Z15
	// lanes: Z16+4c..Z19+4c hold columns c, c+8 | c+4, c+12 of rows 0-7 and 8-15
	VSHUFF32X4 $0x88, Z4, Z0, Z16
	VSHUFF32X4 $0xDD, Z4, Z0, Z17
	VSHUFF32X4 $0x88, Z12, Z8, Z18
	VSHUFF32X4 $0xDD, Z12, Z8, Z19
	VSHUFF32X4 $0x88, Z5, Z1, Z20
	VSHUFF32X4 $0xDD, Z5, Z1, Z21
	VSHUFF32X4 $0x88, Z13, Z9, Z22
	VSHUFF32X4 $0xDD, Z13, Z9, Z23
	VSHUFF32X4 $0x88, Z6, Z2, Z24
	VSHUFF32X4 $0xDD, Z6, Z2, Z25
	VSHUFF32X4 $0x88, Z14, Z10, Z26
	VSHUFF32X4 $0xDD, Z14, Z10, Z27
	VSHUFF32X4 $0x88, Z7, Z3, Z28
	VSHUFF32X4 $0xDD, Z7, Z3, Z29
	VSHUFF32X4 $0x88, Z15, Z11, Z30
	VSHUFF32X4 $0xDD, Z15, Z11, Z31
	// lanes again: column j of the block in Zj
	VSHUFF32X4 $0x88, Z18, Z16, Z0
	VSHUFF32X4 $0xDD, Z18, Z16, Z8
	VSHUFF32X4 $0x88, Z19, Z17, Z4
	VSHUFF32X4 $0xDD, Z19, Z17, Z12
	VSHUFF32X4 $0x88, Z22, Z20, Z1
	VSHUFF32X4 $0xDD, Z22, Z20, Z9
	VSHUFF32X4 $0x88, Z23, Z21, Z5
	VSHUFF32X4 $0xDD, Z23, Z21, Z13
	VSHUFF32X4 $0x88, Z26, Z24, Z2
	VSHUFF32X4 $0xDD, Z26, Z24, Z10
	VSHUFF32X4 $0x88, Z27, Z25, Z6
	VSHUFF32X4 $0xDD, Z27, Z25, Z14
	VSHUFF32X4 $0x88, Z30, Z28, Z3
	VSHUFF32X4 $0xDD, Z30, Z28, Z11
	VSHUFF32X4 $0x88, Z31, Z29, Z7
	VSHUFF32X4 $0xDD, Z31, Z29, Z15
	VMOVUPS Z0, (DI)
	ADDQ    DX, DI
	VMOVUPS Z1, (DI)
	ADDQ    DX, DI
	VMOVUPS Z2, (DI)
	ADDQ    DX, DI
	VMOVUPS Z3, (DI)
	ADDQ    DX, DI
	VMOVUPS Z4, (DI)
	ADDQ    DX, DI
	VMOVUPS Z5, (DI)
	ADDQ    DX, DI
	VMOVUPS Z6, (DI)
	ADDQ    DX, DI
	VMOVUPS Z7, (DI)
	ADDQ    DX, DI
	VMOVUPS Z8, (DI)
	ADDQ    DX, DI
	VMOVUPS Z9, (DI)
	ADDQ    DX, DI
	VMOVUPS Z10, (DI)
	ADDQ    DX, DI
	VMOVUPS Z11, (DI)
	ADDQ    DX, DI
	VMOVUPS Z12, (DI)
	ADDQ    DX, DI
	VMOVUPS Z13, (DI)
	ADDQ    DX, DI
	VMOVUPS Z14, (DI)
	ADDQ    DX, DI
	VMOVUPS Z15, (DI)
	ADDQ    DX, DI
	ADDQ $64, SI
	DECQ CX
	JNZ  block

done:
	VZEROUPPER
	RET
