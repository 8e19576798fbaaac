package norm

import (
	"math"
	"math/rand"
	"testing"
)

// TestColMatKernelsMatchRowLoops holds each whole-matrix kernel of the
// per-feature family to the Go row loop it replaces, bit for bit, at the
// widths it takes (d a multiple of 4), with a NaN, an Inf and zeros among
// the inputs. The Go functions run with the AVX kernels off, so the
// reference is the plain Go loop whatever the width.
func TestColMatKernelsMatchRowLoops(t *testing.T) {
	if !colMat(make([]float32, 8), 8) {
		t.Skip("no whole-matrix kernels on this CPU or build")
	}
	r := rand.New(rand.NewSource(7))
	for _, tc := range []struct{ n, d int }{{1, 4}, {3, 8}, {50, 8}, {7, 12}, {9, 16}, {5, 32}, {4, 36}} {
		n, d := tc.n, tc.d
		x := randF32(r, n*d, 2, 0.5)
		g := randF32(r, n*d, 1, -0.1)
		x[0], g[len(g)-1] = 0, 0
		if n > 2 {
			x[d+1] = float32(math.NaN())
			g[2*d] = float32(math.Inf(1))
		}
		per := func(scale, shift float64) []float64 {
			v := make([]float64, d)
			for k := range v {
				v[k] = r.NormFloat64()*scale + shift
			}
			return v
		}
		mu, a, gam, bet, cmu, cvar := per(1, 0), per(0.3, 1), per(0.5, 1), per(0.5, 0), per(0.1, 0), per(0.1, 0)
		acc := func() ([]float64, []float64) { return per(1, 0), per(1, 0) } // nonzero start

		// Σx, Σx²
		s1, s2 := acc()
		w1, w2 := append([]float64(nil), s1...), append([]float64(nil), s2...)
		colAccumMat(x, d, s1, s2)
		withAVX(false, func() {
			for off := 0; off < n*d; off += d {
				colAccum(x[off:off+d], 1, w1, w2)
			}
		})
		sameBits64(t, "colAccumMat s1", s1, w1)
		sameBits64(t, "colAccumMat s2", s2, w2)

		// Σ(x - μ)²
		vs, _ := acc()
		wv := append([]float64(nil), vs...)
		colAccumDevMat(x, d, mu, vs)
		withAVX(false, func() {
			for off := 0; off < n*d; off += d {
				colAccumDev(x[off:off+d], 1, mu, wv)
			}
		})
		sameBits64(t, "colAccumDevMat", vs, wv)

		// y = γ(x - μ)a + β
		y, wy := make([]float32, n*d), make([]float32, n*d)
		colWriteMat(x, d, mu, a, gam, bet, y)
		withAVX(false, func() {
			for off := 0; off < n*d; off += d {
				colWrite(x[off:off+d], 1, mu, a, gam, bet, wy[off:off+d])
			}
		})
		sameBits32(t, "colWriteMat", y, wy)

		// dγ, dβ
		dg, db := acc()
		wg, wb := append([]float64(nil), dg...), append([]float64(nil), db...)
		colParamGradsMat(x, g, d, mu, a, dg, db)
		for off := 0; off < n*d; off += d {
			colParamGrads(x[off:off+d], g[off:off+d], 1, mu, a, wg, wb)
		}
		sameBits64(t, "colParamGradsMat dγ", dg, wg)
		sameBits64(t, "colParamGradsMat dβ", db, wb)

		// dx and each row's ‖g_σ²‖², with and without the per-row sums
		for _, withGv := range []bool{true, false} {
			dx, wdx := make([]float32, n*d), make([]float32, n*d)
			var gv []float64
			if withGv {
				gv = make([]float64, n)
			}
			colGradOutMat(x, g, d, gam, mu, a, cmu, cvar, dx, gv)
			rb := make([]float64, d)
			for i := 0; i < n; i++ {
				want := colGradOut(x[i*d:(i+1)*d], g[i*d:(i+1)*d], gam, 1, mu, a, cmu, cvar, rb)
				for k, v := range rb {
					wdx[i*d+k] = float32(v)
				}
				if withGv {
					sameBits64(t, "colGradOutMat gv", gv[i:i+1], []float64{0 + want})
				}
			}
			sameBits32(t, "colGradOutMat dx", dx, wdx)
		}
	}
}
