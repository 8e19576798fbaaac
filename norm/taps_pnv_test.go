package norm

import (
	"math"
	"math/rand"
	"testing"
)

// TestTapsPNVLayerScale: pn-v:groups=1 is the PowerNorm authors' PN-V
// (docs/math.md §11): every row divided by its RMS, then PN-V. Its batch ψ²,
// its output and g_ψ² are worked by hand on the layer-scaled rows.
func TestTapsPNVLayerScale(t *testing.T) {
	const n, d, eps = 6, 4, 1e-5
	mask := []bool{true, true, false, true, true, true}
	r := rand.New(rand.NewSource(3))
	l := mustLayer(t, "pn-v:groups=1", Site{D: d, Dtype: f64})
	if l.Groups() != 1 {
		t.Fatalf("Groups() = %d, want 1", l.Groups())
	}
	gam, bet := randomParams(r, l)
	l.SetMask(mask)
	x := randSlice(r, n*d, 3, 0.5)
	g := randSlice(r, n*d, 1, 0)
	y, _, _, _ := refStep(t, l, x, g, n)
	rows := realRows(n, mask)
	nr := float64(len(rows))
	xs := make([]float64, n*d) // the layer-scaled rows x/√(mean(x²)+ε)
	for i := 0; i < n; i++ {
		ms := 0.0
		for k := 0; k < d; k++ {
			ms += x[i*d+k] * x[i*d+k] / d
		}
		for k := 0; k < d; k++ {
			xs[i*d+k] = x[i*d+k] / math.Sqrt(ms+eps)
		}
	}
	_, _, psi := naiveColStats(xs, n, d, mask)
	assertClose(t, "BatchPsi2", l.Taps().BatchPsi2, psi, 1e-12)
	D := make([]float64, d)
	for k := range D {
		D[k] = math.Sqrt(psi[k] + eps)
	}
	S2 := make([]float64, d)
	for _, i := range rows {
		for k := 0; k < d; k++ {
			want := gam[k]*xs[i*d+k]/D[k] + bet[k]
			if math.Abs(y[i*d+k]-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("y[%d,%d] = %v, want %v", i, k, y[i*d+k], want)
			}
			S2[k] += gam[k] * g[i*d+k] * xs[i*d+k] / D[k]
		}
	}
	gpsi := 0.0
	for _, i := range rows {
		s := 0.0
		for k := 0; k < d; k++ {
			v := xs[i*d+k] / D[k] * S2[k] / (nr * D[k])
			s += v * v
		}
		gpsi += math.Sqrt(s) / nr
	}
	checkScalar(t, "GPsi2", l.Taps().GPsi2, gpsi)
}
