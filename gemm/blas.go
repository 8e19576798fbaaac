package gemm

import (
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
	if !haveKernels || !argsOK(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc) {
		gonum.Implementation{}.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gemm(tA != blas.NoTrans, tB != blas.NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dgemm is Sgemm in float64.
func (Implementation) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !haveKernels || !argsOK(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc) {
		gonum.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gemm(tA != blas.NoTrans, tB != blas.NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// argsOK reports whether gonum's ?gemm would accept the arguments: valid
// transposes, non-negative sizes, leading dimensions at least the row
// widths, and slices long enough for every element addressed.
func argsOK(tA, tB blas.Transpose, m, n, k, la, lda, lb, ldb, lc, ldc int) bool {
	okT := func(t blas.Transpose) bool {
		return t == blas.NoTrans || t == blas.Trans || t == blas.ConjTrans
	}
	if !okT(tA) || !okT(tB) || m < 0 || n < 0 || k < 0 {
		return false
	}
	rowsA, colsA := m, k
	if tA != blas.NoTrans {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if tB != blas.NoTrans {
		rowsB, colsB = n, k
	}
	if lda < max(1, colsA) || ldb < max(1, colsB) || ldc < max(1, n) {
		return false
	}
	if m == 0 || n == 0 {
		return true
	}
	return la >= (rowsA-1)*lda+colsA && lb >= (rowsB-1)*ldb+colsB && lc >= (m-1)*ldc+n
}
