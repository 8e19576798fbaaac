//go:build !amd64 || purego

package gemm

// Without the amd64 kernels Sgemm and Dgemm are gonum's.
var (
	haveKernels = false
	haveAVX512  = false
	useAVX512   = false

	useTranspose16 = false
)

func kernel6x16(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool) {
	panic("gemm: no assembly kernels in this build")
}

func kernel8x32(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool) {
	panic("gemm: no assembly kernels in this build")
}

func kernel8x32p(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool, pk *float32) {
	panic("gemm: no assembly kernels in this build")
}

func kernel8x32a(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool, pk *float32) {
	panic("gemm: no assembly kernels in this build")
}

func kernel8x16(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool, cols uint16) {
	panic("gemm: no assembly kernels in this build")
}

func kernel6x8(kc int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, alpha float64, add bool) {
	panic("gemm: no assembly kernels in this build")
}

func kernel8x16seg(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool, cols uint16, nseg, ajump int) {
	panic("gemm: no assembly kernels in this build")
}

func transpose16(dst *float32, dstStride int, src *float32, ldb, rows, blocks int) {
	panic("gemm: no assembly kernels in this build")
}

func copyRows32(dst, src *float32, ld, rows, w int) {
	panic("gemm: no assembly kernels in this build")
}

func kernelTN8(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16) {
	panic("gemm: no assembly kernels in this build")
}

func kernelTN16(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16) {
	panic("gemm: no assembly kernels in this build")
}

func kernelTN24(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16) {
	panic("gemm: no assembly kernels in this build")
}

func kernelTNP8(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16) {
	panic("gemm: no assembly kernels in this build")
}

func kernelTNP16(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16) {
	panic("gemm: no assembly kernels in this build")
}

func kernelTNP24(runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16) {
	panic("gemm: no assembly kernels in this build")
}
