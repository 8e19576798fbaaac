package simd

import "golang.org/x/sys/cpu"

// x/sys/cpu reports AVX only where the operating system saves the Y
// registers, and AVX-512F only where it also saves the Z and mask registers
// (XGETBV), so a true fact here means the kernels can run, not only that
// the processor has the instructions. On other architectures all are false.
var (
	// AVXFMA: 256-bit AVX floating point and FMA3, no AVX2 integer
	// instructions. gemm's 6×16 micro-kernels and every kernel of norm.
	AVXFMA = cpu.X86.HasAVX && cpu.X86.HasFMA

	// AVX2FMA: AVXFMA plus AVX2's integer lanes, which nn's exp kernel
	// uses to build 2^k from the exponent bits.
	AVX2FMA = AVXFMA && cpu.X86.HasAVX2

	// AVX512F: AVXFMA plus AVX-512F, for gemm's 8×32 and 8×16 kernels.
	AVX512F = AVXFMA && cpu.X86.HasAVX512F
)
