//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

// haveKernels selects the assembly kernels of kernel_amd64.s. They use
// 256-bit AVX and FMA3 only (no AVX2 integer instructions); x/sys/cpu
// reports AVX only where the OS saves the Y registers. Tests switch it off
// to compare with gonum.
var haveKernels = cpu.X86.HasAVX && cpu.X86.HasFMA

// The micro-kernels; see kernel_amd64.s. a must address 6 rows of kc
// elements at strides rsa (rows) and csa (columns), b kc rows of 16
// (float32) or 8 (float64) elements at stride ldb, c 6 rows of that width
// at stride ldc.

//go:noescape
func kernel6x16(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool)

//go:noescape
func kernel6x8(kc int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, alpha float64, add bool)
