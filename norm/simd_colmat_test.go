package norm

import (
	"fmt"
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

// TestTapMatKernelsMatchRowLoops holds the probes' whole-matrix kernels to
// the Go row loops of statTapSums, statTapDevs and colBackward's
// Theorem-1 sums, bit for bit, at the widths that run them (d < 16), with
// and without a NaN (max|x| is then NaN, as the Go loop gives) and with
// ±Inf.
func TestTapMatKernelsMatchRowLoops(t *testing.T) {
	if !colMatGo(make([]float32, 8), 8) {
		t.Skip("no whole-matrix kernels on this CPU or build")
	}
	r := rand.New(rand.NewSource(11))
	for _, tc := range []struct {
		n, d int
		poke string
	}{{1, 4, ""}, {40, 8, ""}, {9, 12, ""}, {6, 8, "nan"}, {6, 8, "inf"}, {5, 4, "-inf"}, {13, 8, ""}, {11, 8, "inf"}, {8, 8, "nan"}} {
		n, d := tc.n, tc.d
		x := randF32(r, n*d, 3, 0.7)
		g := randF32(r, n*d, 0.5, -0.2)
		switch tc.poke {
		case "nan":
			x[d+2] = float32(math.NaN())
		case "inf":
			x[3], x[2*d] = float32(math.Inf(1)), float32(math.Inf(-1))
		case "-inf":
			x[n*d-1] = float32(math.Inf(-1))
		}
		per := func() []float64 {
			v := make([]float64, d)
			for k := range v {
				v[k] = r.NormFloat64()
			}
			return v
		}
		mean, psi := per(), per()
		wm, wp := append([]float64(nil), mean...), append([]float64(nil), psi...)
		sum, mx := tapAccumMat(x, d, mean, psi)
		var wsum, wmx float64
		withAVX(false, func() {
			for i := 0; i < n; i++ {
				s, m := tapAccum(x[i*d:(i+1)*d], 1, wm, wp)
				wsum += s
				if m > wmx || m != m {
					wmx = m
				}
			}
		})
		what := func(s string) string { return s + " " + tc.poke }
		sameBits64(t, what("tapAccumMat mean"), mean, wm)
		sameBits64(t, what("tapAccumMat psi"), psi, wp)
		sameBits64(t, what("tapAccumMat sum"), []float64{sum}, []float64{wsum})
		sameBits64(t, what("tapAccumMat max|x|"), []float64{mx}, []float64{wmx})

		mu := r.NormFloat64()
		vs := per()
		wv := append([]float64(nil), vs...)
		ss := tapDevMat(x, d, mu, mean, vs)
		var wss float64
		withAVX(false, func() {
			for i := 0; i < n; i++ {
				wss += sumSqDev(x[i*d:(i+1)*d], mu)
				colAccumDev(x[i*d:(i+1)*d], 1, mean, wv)
			}
		})
		sameBits64(t, what("tapDevMat vs"), vs, wv)
		sameBits64(t, what("tapDevMat ss"), []float64{ss}, []float64{wss})

		got, ok := momentsMat(x, g, d)
		if pow2 := d&(d-1) == 0; ok != pow2 {
			t.Fatalf("d %d: momentsMat ran %v, want %v (only at a power of two)", d, ok, pow2)
		}
		if !ok {
			continue
		}
		var want momentSums
		withAVX(false, func() {
			for i := 0; i < n; i++ {
				want = want.add(rowMoments2(x[i*d:(i+1)*d], g[i*d:(i+1)*d]))
			}
		})
		sameBits64(t, what("momentsMat"), []float64{got.dxm, got.dxv, got.dym, got.dyv}, []float64{want.dxm, want.dxv, want.dym, want.dyv})
	}
}

// TestMomentsMatWideRows holds momentsMat at 16 features or more
// (moments2Mat32) to colBackward's row loop, rowMoments2 a row at a time
// with the AVX kernels on (moments2_32AVX), bit for bit, with NaN and
// ±Inf among the values; at widths that are no power of two, or no
// multiple of 16, it declines.
func TestMomentsMatWideRows(t *testing.T) {
	if !colMat(make([]float32, 16), 16) {
		t.Skip("no whole-matrix kernels on this CPU or build")
	}
	r := rand.New(rand.NewSource(13))
	for _, tc := range []struct {
		n, d int
		poke string
	}{{1, 16, ""}, {37, 16, ""}, {9, 32, ""}, {5, 64, ""}, {6, 16, "nan"}, {6, 32, "inf"}, {3, 48, ""}, {3, 24, ""}} {
		n, d := tc.n, tc.d
		x := randF32(r, n*d, 3, 0.7)
		g := randF32(r, n*d, 0.5, -0.2)
		switch tc.poke {
		case "nan":
			g[d+2] = float32(math.NaN())
		case "inf":
			x[3], x[2*d] = float32(math.Inf(1)), float32(math.Inf(-1))
		}
		got, ok := momentsMat(x, g, d)
		if want := d&(d-1) == 0 && d%16 == 0; ok != want {
			t.Fatalf("d %d: momentsMat ran %v, want %v", d, ok, want)
		}
		if !ok {
			continue
		}
		var want momentSums
		for i := 0; i < n; i++ {
			want = want.add(rowMoments2(x[i*d:(i+1)*d], g[i*d:(i+1)*d]))
		}
		sameBits64(t, fmt.Sprintf("momentsMat n %d d %d %s", n, d, tc.poke), []float64{got.dxm, got.dxv, got.dym, got.dyv}, []float64{want.dxm, want.dxv, want.dym, want.dyv})
	}
}

// TestColMatFMAKernelsMatchRowLoops holds the whole-matrix FMA kernels
// (d a multiple of 16) to the per-row path they replace, with the AVX
// kernels on (colWrite and colAccumDev a row at a time, which run each
// row in the per-row FMA kernels), bit for bit, with a NaN, ±Inf and
// zeros among the inputs; elsewhere colMatFMA declines.
func TestColMatFMAKernelsMatchRowLoops(t *testing.T) {
	if !colMat(make([]float32, 16), 16) {
		t.Skip("no whole-matrix kernels on this CPU or build")
	}
	r := rand.New(rand.NewSource(17))
	for _, tc := range []struct{ n, d int }{{1, 16}, {7, 16}, {5, 32}, {3, 48}, {2, 64}, {3, 8}, {3, 24}} {
		n, d := tc.n, tc.d
		if want := d%16 == 0; colMatFMA(make([]float32, n*d), d) != want {
			t.Fatalf("d %d: colMatFMA %v, want %v", d, !want, want)
		}
		if d%16 != 0 {
			continue
		}
		x := randF32(r, n*d, 2, 0.5)
		x[0] = 0
		if n > 2 {
			x[d+1], x[2*d+3], x[2*d+5] = float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))
		}
		per := func(scale, shift float64) []float64 {
			v := make([]float64, d)
			for k := range v {
				v[k] = r.NormFloat64()*scale + shift
			}
			return v
		}
		mu, a, gam, bet := per(1, 0), per(0.3, 1), per(0.5, 1), per(0.5, 0)
		y, wy := make([]float32, n*d), make([]float32, n*d)
		colWriteMatFMA(x, d, mu, a, gam, bet, y)
		for off := 0; off < n*d; off += d {
			colWrite(x[off:off+d], 1, mu, a, gam, bet, wy[off:off+d])
		}
		for i := range y {
			if math.Float32bits(y[i]) != math.Float32bits(wy[i]) && !(y[i] != y[i] && wy[i] != wy[i]) {
				t.Fatalf("n %d d %d: colWriteMatFMA y[%d] = %v, the row loop's %v", n, d, i, y[i], wy[i])
			}
		}
		vs := per(1, 0)
		wv := append([]float64(nil), vs...)
		colAccumDevMatFMA(x, d, mu, vs)
		for off := 0; off < n*d; off += d {
			colAccumDev(x[off:off+d], 1, mu, wv)
		}
		sameBits64(t, fmt.Sprintf("colAccumDevMatFMA n %d d %d", n, d), vs, wv)

		// the Stats taps' two passes: finite rows (a NaN or both
		// infinities make tapAccumMatFMA decline, for the row loop's rescan)
		xf := randF32(r, n*d, 2, 0.5)
		xf[0] = 0
		mean, psi := per(1, 0), per(1, 0)
		wm, wp := append([]float64(nil), mean...), append([]float64(nil), psi...)
		sum, mx, ok := tapAccumMatFMA(xf, d, mean, psi)
		var wsum, wmx float64
		for off := 0; off < n*d; off += d {
			s, m := tapAccumRowFast(xf[off:off+d], d, noScales[:], wm, wp)
			wsum += s
			if m > wmx || m != m {
				wmx = m
			}
		}
		what := fmt.Sprintf("tapAccumMatFMA n %d d %d", n, d)
		if !ok {
			t.Fatalf("%s: declined finite rows", what)
		}
		sameBits64(t, what+" mean", mean, wm)
		sameBits64(t, what+" psi", psi, wp)
		sameBits64(t, what+" sum, max|x|", []float64{sum, mx}, []float64{wsum, wmx})
		if _, _, ok := tapAccumMatFMA(x, d, per(1, 0), per(1, 0)); ok == (n > 2) {
			t.Fatalf("%s: ran %v with a NaN among the values: %v", what, ok, n > 2)
		}
		inMean := r.NormFloat64()
		vs, wv = per(1, 0), nil
		wv = append(wv, vs...)
		ss := tapDevMatFMA(xf, d, inMean, mean, vs)
		var wss float64
		for off := 0; off < n*d; off += d {
			wss += tapDevRowFast(xf[off:off+d], d, inMean, noScales[:], mean, wv)
		}
		sameBits64(t, fmt.Sprintf("tapDevMatFMA n %d d %d", n, d), append(vs, ss), append(wv, wss))
	}
}

// TestValuesFinite: the identity site's finiteness probe finds a NaN or
// an infinity wherever it sits (in the four-way body or the tail, in
// float32 and float64), and nothing in finite values, zeros or an empty
// batch.
func TestValuesFinite(t *testing.T) {
	for n := 0; n < 11; n++ {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i) - 3.5
		}
		if !valuesFinite(x) {
			t.Fatalf("%d finite values: not finite", n)
		}
		for i := 0; i < n; i++ {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				y := append([]float32(nil), x...)
				y[i] = float32(bad)
				z := make([]float64, n)
				z[i] = bad
				if valuesFinite(y) || valuesFinite(z) {
					t.Fatalf("%v at %d of %d: finite", bad, i, n)
				}
			}
		}
	}
}
