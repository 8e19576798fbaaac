package gemm

import (
	"testing"

	"github.com/normtop/normtop/gemm/openblas"
)

// OpenBLAS must pass the same checks as ours: it is the reference, and the
// binding (row-major, transposes, strides, NaN under beta = 0) is ours.
// CI runs this with -tags openblas.
func TestOpenBLASOddShapes(t *testing.T) {
	ob, ok := openblas.Get()
	if !ok {
		t.Skip("OpenBLAS not linked: build with -tags openblas (needs cgo and libopenblas-dev)")
	}
	for i, p := range oddProblems() {
		t.Run(p.String(), func(t *testing.T) {
			check(t, p, uint64(i), u32, ob.Sgemm)
			check(t, p, uint64(i), u64, ob.Dgemm)
		})
	}
}

// TestDefault: Install picks OpenBLAS exactly when the build links it.
func TestDefault(t *testing.T) {
	ob, linked := openblas.Get()
	switch d := Default(); {
	case linked && d != ob:
		t.Fatalf("Default() = %T with OpenBLAS linked", d)
	case !linked && d != BLAS(Implementation{}):
		t.Fatalf("Default() = %T without OpenBLAS, want gemm.Implementation", d)
	}
}
