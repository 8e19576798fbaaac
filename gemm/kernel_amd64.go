//go:build amd64 && !purego

package gemm

import (
	"os"

	"github.com/normtop/normtop/internal/simd"
)

// haveKernels selects the assembly kernels of kernel_amd64.s. They use
// 256-bit AVX and FMA3 only (no AVX2 integer instructions). Tests switch
// it off to compare with gonum.
var haveKernels = simd.AVXFMA

// haveAVX512 says kernel8x32 and kernel8x16 can run: they use AVX-512F
// instructions only.
var haveAVX512 = haveKernels && simd.AVX512F

// useAVX512 selects kernel8x32 for float32 products; the environment
// variable NORMTOP_GEMM=avx2 keeps kernel6x16 (to compare the two in whole
// programs), and tests flip it to run every test through both. Both
// kernels give the same bits.
var useAVX512 = haveAVX512 && os.Getenv("NORMTOP_GEMM") != "avx2"

// useTranspose16 packs a transposed B's float32 panels with transpose16
// (AVX-512F) instead of the Go loop, whichever kernel then reads them:
// both copy the same values, so tests switch it off to compare.
var useTranspose16 = haveAVX512

// The micro-kernels; see kernel_amd64.s. a must address mr rows of kc
// elements at strides rsa (rows) and csa (columns), b kc rows of nr
// elements at stride ldb, c mr rows of nr elements at stride ldc, for the
// kernel's mr×nr block. kernel8x16 reads and writes only the columns of C
// whose bit is set in cols (the low bits: 1<<n - 1 for n columns).

//go:noescape
func transpose16(dst *float32, dstStride int, src *float32, ldb, rows, blocks int)

//go:noescape
func copyRows32(dst, src *float32, ld, rows, w int)

//go:noescape
func kernel6x16(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool)

//go:noescape
func kernel8x32(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool)

//go:noescape
func kernel8x32p(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool, pk *float32)

//go:noescape
func kernel8x32a(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool, pk *float32)

//go:noescape
func kernel8x16(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool, cols uint16)

//go:noescape
func kernel6x8(kc int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, alpha float64, add bool)

//go:noescape
func kernel8x16seg(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool, cols uint16, nseg, ajump int)

// kernelTN8, kernelTN16 and kernelTN24 are C[0:R, cols] (+)= Σ over the
// rows of the runs of A[p, 0:R]ᵀ · B[p, cols] for R = 8, 16, 24, A read in
// place at row stride lda (WindowsTRuns); kernelTNP8, kernelTNP16 and
// kernelTNP24 the same for at most 8 columns (cols < 1<<8), two rows of C
// to a register, with the same bits. Every run has N ≥ 1 rows.

//go:noescape
func kernelTN8(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16)

//go:noescape
func kernelTN16(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16)

//go:noescape
func kernelTN24(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16)

//go:noescape
func kernelTNP8(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16)

//go:noescape
func kernelTNP16(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16)

//go:noescape
func kernelTNP24(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16)
