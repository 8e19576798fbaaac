package gemm

import "fmt"

// Overlapping is C = alpha·op(A)·op(B) + beta·C, row-major as Sgemm and
// Dgemm, on this package's kernels, for an A whose rows may overlap: its
// row stride lda may be smaller than the width of a row (for a transposed
// A, the width of a column of op(A)). Row q of a convolution's patch
// matrix for one filter row is kw·C contiguous values that start C after
// row q−1's, so over a padded image the patch matrix is the image itself
// read at stride C, and the product needs no im2col copy (nn.ConvRows).
// The kernels only read A, so the overlap is harmless; B and C are as
// for Sgemm. It reports false, doing nothing, where this build or CPU has
// no kernels (gonum's and OpenBLAS's gemm reject such an lda), and panics
// when a slice is too short for the elements the sizes address.
func Overlapping[T float32 | float64](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) bool {
	if !haveKernels {
		return false
	}
	rowsA, colsA := m, k
	if tA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if tB {
		rowsB, colsB = n, k
	}
	if m < 0 || n < 0 || k < 0 || lda < 1 || ldb < max(1, colsB) || ldc < max(1, n) {
		panic(fmt.Sprintf("gemm.Overlapping: sizes %d×%d×%d with strides %d, %d, %d", m, n, k, lda, ldb, ldc))
	}
	if m == 0 || n == 0 {
		return true
	}
	if (k > 0 && len(a) < (rowsA-1)*lda+colsA) || (k > 0 && len(b) < (rowsB-1)*ldb+colsB) || len(c) < (m-1)*ldc+n {
		panic(fmt.Sprintf("gemm.Overlapping: slices of %d, %d, %d elements are too short for %d×%d×%d at strides %d, %d, %d",
			len(a), len(b), len(c), m, n, k, lda, ldb, ldc))
	}
	gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	return true
}

// CanOverlap says Overlapping runs here: this build and CPU have the
// package's kernels.
func CanOverlap() bool { return haveKernels }
