//go:build amd64 && !purego

#include "textflag.h"

// The float32 row reductions more than one package runs: each converts
// float32 to float64 four lanes at a time into four accumulators of four
// lanes, then adds them in one fixed order, so a sum depends on the length
// alone. len(x) must be a multiple of 16.

// func Sum32(x []float32) float64
// Σ x[i] in float64, four lanes per accumulator.
TEXT ·Sum32(SB), NOSPLIT, $0-32
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	SHRQ $4, CX
	JZ   sumdone

sumloop:
	VCVTPS2PD (SI), Y4
	VCVTPS2PD 16(SI), Y5
	VCVTPS2PD 32(SI), Y6
	VCVTPS2PD 48(SI), Y7
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	VADDPD    Y6, Y2, Y2
	VADDPD    Y7, Y3, Y3
	ADDQ      $64, SI
	DECQ      CX
	JNZ       sumloop

sumdone:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VADDSD       X1, X0, X0
	VZEROUPPER
	MOVSD        X0, ret+24(FP)
	RET

// func SumSqDev32(x []float32, mu float64) float64
// Σ (x[i]−μ)² in float64, four lanes per accumulator. With μ = 0, x−μ is
// x exactly and each FMA rounds only the add (a float32 square is exact in
// float64), as a Go loop of s += x·x does; the sums differ from it in
// order only.
TEXT ·SumSqDev32(SB), NOSPLIT, $0-40
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSD mu+24(FP), Y8
	VXORPD       Y0, Y0, Y0
	VXORPD       Y1, Y1, Y1
	VXORPD       Y2, Y2, Y2
	VXORPD       Y3, Y3, Y3
	SHRQ         $4, CX
	JZ           ssddone

ssdloop:
	VCVTPS2PD (SI), Y4
	VCVTPS2PD 16(SI), Y5
	VCVTPS2PD 32(SI), Y6
	VCVTPS2PD 48(SI), Y7
	VSUBPD      Y8, Y4, Y4
	VSUBPD      Y8, Y5, Y5
	VSUBPD      Y8, Y6, Y6
	VSUBPD      Y8, Y7, Y7
	VFMADD231PD Y4, Y4, Y0
	VFMADD231PD Y5, Y5, Y1
	VFMADD231PD Y6, Y6, Y2
	VFMADD231PD Y7, Y7, Y3
	ADDQ        $64, SI
	DECQ        CX
	JNZ         ssdloop

ssddone:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VADDSD       X1, X0, X0
	VZEROUPPER
	MOVSD        X0, ret+32(FP)
	RET
