//go:build amd64 && !purego

#include "textflag.h"

// copyRows32 copies rows rows of w float32s (w a positive multiple of 8),
// row p from src + p·ld to dst + p·w: a panel of packed B, or of a
// transposed A, in 32-byte AVX moves. Go's fixed-size array copies call
// runtime.memmove for each row (the compiler cannot rule out overlap),
// which cost more than the 32 or 128 bytes they moved.
//
// func copyRows32(dst, src *float32, ld, rows, w int)
TEXT ·copyRows32(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	SHLQ $2, R8
	MOVQ rows+24(FP), CX
	MOVQ w+32(FP), R9
	SHLQ $2, R9
	TESTQ CX, CX
	JZ    done

row:
	XORQ AX, AX

col:
	VMOVUPS (SI)(AX*1), Y0
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, R9
	JB      col
	ADDQ    R8, SI
	ADDQ    R9, DI
	DECQ    CX
	JNZ     row

done:
	VZEROUPPER
	RET
