package args

import "gonum.org/v1/gonum/blas"

// OK reports whether gonum's ?gemm would accept the arguments: valid
// transposes, non-negative sizes, leading dimensions at least the row
// widths, and slices (of lengths la, lb, lc) long enough for every element
// addressed. Where it does not, callers hand the call to gonum, which
// panics with its own message.
func OK(tA, tB blas.Transpose, m, n, k, la, lda, lb, ldb, lc, ldc int) bool {
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
