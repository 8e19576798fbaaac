package gemm

import (
	"github.com/normtop/normtop/gemm/internal/args"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Implementation is gonum's BLAS with Sgemm and Dgemm replaced by the
// kernels of this package where the CPU has them.
type Implementation struct {
	gonum.Implementation
}

var (
	_ blas.Float32 = Implementation{}
	_ blas.Float64 = Implementation{}
)

// Sgemm is C = alpha·op(A)·op(B) + beta·C in float32, row-major, as
// gonum's blas.Float32Level3 defines it. Bad arguments are handed to
// gonum's Sgemm, which panics with its own message.
func (Implementation) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if !haveKernels || !args.OK(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc) {
		gonum.Implementation{}.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gemm(tA != blas.NoTrans, tB != blas.NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dgemm is Sgemm in float64.
func (Implementation) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !haveKernels || !args.OK(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc) {
		gonum.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gemm(tA != blas.NoTrans, tB != blas.NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
