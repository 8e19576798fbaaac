//go:build amd64 && !purego

package nn

import (
	"math"
	"math/rand"
	"testing"
)

// TestVecExp512MatchesAVX2: the AVX-512 exp kernels give the AVX2
// kernels' bits (every exp and the float64 sum), on every length from 0
// to 70 (the sixteen-lane steps, the eight-lane step and the masked tail in
// every combination) and long rows, over arguments whose exps' sum
// rounds (so that its order shows) and exp's special ones (NaN, ±Inf, overflow, subnormal and zero results), with y
// apart from x, y = x and no y; neither writes past y.
func TestVecExp512MatchesAVX2(t *testing.T) {
	if !useAVX512 {
		t.Skip("no AVX-512F")
	}
	r := rand.New(rand.NewSource(23))
	lengths := []int{175, 176, 2000, 2003}
	for n := 0; n <= 70; n++ {
		lengths = append(lengths, n)
	}
	// a row whose sum shows a change of order alone: in lane 0, e⁴⁰ and
	// then, in each step's two halves, an exp of 0.3 ulp of the sum (each
	// lost when added alone, not when added as a pair)
	tie := make([]float32, 64)
	for i := range tie {
		tie[i] = float32(math.Inf(-1))
		if i%8 == 0 {
			tie[i] = float32(-9.5)
		}
	}
	tie[0] = 27.7
	rows := [][]float32{tie}
	for _, n := range lengths {
		x := make([]float32, n)
		for i := range x {
			// exps from 1 to 2³⁶ (float32s whose float64 sum needs
			// more than 53 bits, so that its order shows in its
			// rounding), a few from 2⁻¹²⁶ to 2¹²⁶, and the special ones
			switch k := r.Intn(8); {
			case k == 0:
				x[i] = expCases[r.Intn(len(expCases))]
			case k == 1:
				x[i] = float32(r.Float64()*170 - 85)
			default:
				x[i] = float32(r.Float64() * 25)
			}
		}
		rows = append(rows, x)
	}
	for _, x := range rows {
		n := len(x)
		for _, s := range []float32{0, 3.5, -90, 88, float32(math.Inf(1)), float32(math.NaN())} {
			const canary = 12345
			want, got := make([]float32, n+1), make([]float32, n+1)
			want[n], got[n] = canary, canary
			ws := expShiftSum32AVX(x, want[:n], s)
			gs := expShiftSum32AVX512(x, got[:n], s)
			only := expShiftSum32AVX512(x, nil, s)
			in := append([]float32(nil), x...)
			inSum := expShiftSum32AVX512(in, in, s)
			for _, sum := range []float64{gs, only, inSum} {
				if math.Float64bits(sum) != math.Float64bits(ws) {
					t.Fatalf("n=%d s=%v: sum %v (bits %x), AVX2 %v (bits %x)", n, s, sum, math.Float64bits(sum), ws, math.Float64bits(ws))
				}
			}
			for i := 0; i <= n; i++ {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) || (i < n && math.Float32bits(in[i]) != math.Float32bits(want[i])) {
					t.Fatalf("n=%d s=%v [%d]: exp(%v−s) %v (in place %v), AVX2 %v", n, s, i, x[min(i, n-1)], got[i], in[min(i, n-1)], want[i])
				}
			}
			for _, ab := range [][2]float32{{1, 0}, {0.37, 4.9e-5}, {-2, 0}, {1e-30, -1e30}, {float32(math.NaN()), 1}} {
				want[n], got[n] = canary, canary
				expScaleSub32AVX(x, want[:n], s, ab[0], ab[1])
				expScaleSub32AVX512(x, got[:n], s, ab[0], ab[1])
				in := append([]float32(nil), x...)
				expScaleSub32AVX512(in, in, s, ab[0], ab[1])
				for i := 0; i <= n; i++ {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) || (i < n && math.Float32bits(in[i]) != math.Float32bits(want[i])) {
						t.Fatalf("n=%d s=%v a,b=%v [%d]: %v (in place %v), AVX2 %v", n, s, ab, i, got[i], in[min(i, n-1)], want[i])
					}
				}
			}
		}
	}
}
