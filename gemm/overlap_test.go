package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestOverlapping: products whose A rows overlap (a row stride below the
// row's width, as a convolution's patches read from a padded image), A
// transposed or not, against a float64 sum of the same elements, with
// each kernel; and the arguments it refuses.
func TestOverlapping(t *testing.T) {
	if !CanOverlap() {
		if Overlapping(false, false, 1, 1, 1, float32(1), []float32{1}, 1, []float32{1}, 1, 0, []float32{0}, 1) {
			t.Fatal("Overlapping ran without kernels")
		}
		t.Skip("no kernels in this build")
	}
	forEachKernel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, s := range []struct {
			tA         bool
			m, n, k, l int // l: A's row stride
		}{
			{false, 100, 8, 24, 8}, {false, 9, 16, 3, 1}, {false, 70, 40, 48, 16}, {false, 5, 3, 9, 2},
			{true, 24, 8, 300, 8}, {true, 96, 32, 40, 32}, {true, 13, 10, 7, 3},
		} {
			rowsA, colsA := s.m, s.k
			if s.tA {
				rowsA, colsA = s.k, s.m
			}
			a := make([]float32, (rowsA-1)*s.l+colsA)
			b := make([]float32, s.k*s.n)
			for i := range a {
				a[i] = float32(rng.NormFloat64())
			}
			for i := range b {
				b[i] = float32(rng.NormFloat64())
			}
			c := make([]float32, s.m*s.n)
			for i := range c {
				c[i] = 1
			}
			Overlapping(s.tA, false, s.m, s.n, s.k, 1, a, s.l, b, s.n, 1, c, s.n)
			for i := 0; i < s.m; i++ {
				for j := 0; j < s.n; j++ {
					want, mag := 1.0, 1.0
					for p := 0; p < s.k; p++ {
						var ai float32
						if s.tA {
							ai = a[p*s.l+i]
						} else {
							ai = a[i*s.l+p]
						}
						want += float64(ai) * float64(b[p*s.n+j])
						mag += math.Abs(float64(ai) * float64(b[p*s.n+j]))
					}
					if d := math.Abs(float64(c[i*s.n+j]) - want); d > 1e-6*mag*float64(s.k) {
						t.Fatalf("%+v: C[%d,%d] = %v, want %v", s, i, j, c[i*s.n+j], want)
					}
				}
			}
		}
	})
	for _, bad := range []func(){
		func() {
			Overlapping(false, false, 4, 2, 3, float32(1), make([]float32, 5), 1, make([]float32, 6), 2, 0, make([]float32, 8), 2)
		},
		func() {
			Overlapping(false, false, 4, 2, 3, float32(1), make([]float32, 6), 0, make([]float32, 6), 2, 0, make([]float32, 8), 2)
		},
		func() {
			Overlapping(false, false, 4, 2, 3, float32(1), make([]float32, 6), 1, make([]float32, 6), 2, 0, make([]float32, 8), 1)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("bad arguments: no panic")
				}
			}()
			bad()
		}()
	}
}
