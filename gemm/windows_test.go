package gemm

import (
	"math/rand/v2"
	"testing"
)

// TestWindowsMatchesPatchMatrix: Windows over overlapping segments gives
// Sgemm's bits on the patch matrix written out (the same FMA chain per
// element), for row counts with and without a partial register block,
// 1 to 16 columns; and it declines what its kernel cannot take.
func TestWindowsMatchesPatchMatrix(t *testing.T) {
	if !useAVX512 {
		if Windows(8, 8, 3, 3, 10, make([]float32, 200), 1, make([]float32, 72), 8, make([]float32, 64), 8) {
			t.Fatal("Windows ran without the AVX-512 kernels")
		}
		t.Skip("no AVX-512 kernels here")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range []struct{ m, n, seglen, nseg, segstride, lda int }{
		{64, 8, 24, 3, 240, 8}, {37, 16, 48, 3, 256, 16}, {5, 8, 3, 3, 30, 1}, {8, 1, 7, 2, 9, 3}, {19, 13, 10, 4, 50, 5}, {9, 16, 256, 1, 256, 16},
	} {
		k := s.nseg * s.seglen
		rows := roundUp(s.m, 8)
		a := make([]float32, (rows-1)*s.lda+(s.nseg-1)*s.segstride+s.seglen)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		b := make([]float32, k*s.n)
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		c := make([]float32, s.m*s.n)
		if !Windows(s.m, s.n, s.seglen, s.nseg, s.segstride, a, s.lda, b, s.n, c, s.n) {
			t.Fatalf("%+v: declined", s)
		}
		patches := make([]float32, s.m*k)
		for i := 0; i < s.m; i++ {
			for g := 0; g < s.nseg; g++ {
				copy(patches[i*k+g*s.seglen:][:s.seglen], a[i*s.lda+g*s.segstride:])
			}
		}
		want := make([]float32, s.m*s.n)
		gemm(false, false, s.m, s.n, k, 1, patches, k, b, s.n, 0, want, s.n)
		for i := range want {
			if c[i] != want[i] {
				t.Fatalf("%+v: C[%d] = %v, the patch matrix's product %v (bit-identical)", s, i, c[i], want[i])
			}
		}
	}
	for _, s := range []struct{ n, seglen, nseg int }{{17, 8, 3}, {8, 100, 3}, {0, 8, 3}} {
		if Windows(8, s.n, s.seglen, s.nseg, 1000, make([]float32, 10000), 8, make([]float32, 10000), 32, make([]float32, 1000), 32) {
			t.Errorf("n %d, K %d: not declined", s.n, s.seglen*s.nseg)
		}
	}
}
