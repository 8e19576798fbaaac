//go:build openblas && cgo

package openblas

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
*/
import "C"

import (
	"os"
	"unsafe"

	"github.com/normtop/normtop/gemm/internal/args"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Implementation is gonum's BLAS with Sgemm and Dgemm from OpenBLAS.
type Implementation struct {
	gonum.Implementation
}

// Get returns OpenBLAS, linked in this build.
func Get() (BLAS, bool) { return Implementation{}, true }

func init() {
	// normtop trains its variants in parallel goroutines; OpenBLAS's own
	// threads on top of those would oversubscribe the cores, and one
	// thread is what the pure-Go kernels are compared with. The user's
	// OPENBLAS_NUM_THREADS, where set, wins.
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		C.openblas_set_num_threads(1)
	}
}

func cTrans(t blas.Transpose) C.enum_CBLAS_TRANSPOSE {
	if t == blas.NoTrans {
		return C.CblasNoTrans
	}
	return C.CblasTrans
}

// ptr is the address of s's first element, nil for an empty slice (k = 0:
// cblas reads nothing).
func ptr[T float32 | float64](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// Sgemm is cblas_sgemm, row-major. Bad arguments go to gonum's Sgemm,
// which panics with its message, where OpenBLAS would print its own and
// carry on.
func (Implementation) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if !args.OK(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc) {
		gonum.Implementation{}.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if m == 0 || n == 0 {
		return
	}
	C.cblas_sgemm(C.CblasRowMajor, cTrans(tA), cTrans(tB), C.blasint(m), C.blasint(n), C.blasint(k),
		C.float(alpha), (*C.float)(ptr(a)), C.blasint(lda), (*C.float)(ptr(b)), C.blasint(ldb),
		C.float(beta), (*C.float)(ptr(c)), C.blasint(ldc))
}

// Dgemm is cblas_dgemm, as Sgemm.
func (Implementation) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !args.OK(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc) {
		gonum.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if m == 0 || n == 0 {
		return
	}
	C.cblas_dgemm(C.CblasRowMajor, cTrans(tA), cTrans(tB), C.blasint(m), C.blasint(n), C.blasint(k),
		C.double(alpha), (*C.double)(ptr(a)), C.blasint(lda), (*C.double)(ptr(b)), C.blasint(ldb),
		C.double(beta), (*C.double)(ptr(c)), C.blasint(ldc))
}
