package norm

import (
	"github.com/normtop/normtop/normspec"
	"math"
	"math/rand"
	"testing"
)

// refStep runs one training step of the float64 reference kernels.
func refStep(t *testing.T, l *Layer, x, g []float64, n int) (y, dx, dg, db []float64) {
	t.Helper()
	y = make([]float64, len(x))
	dx = make([]float64, len(x))
	if l.gamma != nil {
		dg, db = make([]float64, l.d), make([]float64, l.d)
	}
	if err := l.Forward64(x, n, y); err != nil {
		t.Fatal(err)
	}
	if g != nil {
		if err := l.Backward64(x, g, n, dx, dg, db); err != nil {
			t.Fatal(err)
		}
	}
	return
}

func moments(v []float64) (mean, variance float64) { return rowMoments(v) }

// TestTheorem1: the table of docs/math.md §1 (Xu et al. Theorem 1), per row, on
// random inputs, both conventions.
func TestTheorem1(t *testing.T) {
	const n, d = 16, 32
	tests := []struct {
		spec     string
		meanIsGD bool // mean(dx) = ḡ/D, else 0
		varIsEq  bool // var(dx) = var(g)/D², else ≤
	}{
		{"layernorm-simple", false, false},
		{"detachnorm", true, true},
		{"detach-mean", true, false},
		{"detach-variance", false, true},
	}
	for _, tt := range tests {
		for _, conv := range []normspec.Convention{normspec.ConvP, normspec.ConvC} {
			spec := tt.spec
			if conv == normspec.ConvC {
				spec += ":conv=c"
			}
			t.Run(spec, func(t *testing.T) {
				r := rand.New(rand.NewSource(3))
				l := mustLayer(t, spec, Site{D: d, Dtype: f64})
				x := randSlice(r, n*d, 2, 1)
				g := randSlice(r, n*d, 1, 0.3)
				_, dx, _, _ := refStep(t, l, x, g, n)
				for i := 0; i < n; i++ {
					_, D, _ := rowStats(x[i*d:(i+1)*d], conv, l.cfg.Eps)
					gm, gv := moments(g[i*d : (i+1)*d])
					dm, dv := moments(dx[i*d : (i+1)*d])
					wantMean := 0.0
					if tt.meanIsGD {
						wantMean = gm / D
					}
					scale := math.Abs(gm)/D + math.Sqrt(gv)/D
					if math.Abs(dm-wantMean) > 1e-12*scale {
						t.Errorf("row %d: mean(dx) = %.17g, want %.17g", i, dm, wantMean)
					}
					bound := gv / (D * D)
					if tt.varIsEq {
						if relErr(dv, bound) > 1e-12 {
							t.Errorf("row %d: var(dx) = %.17g, want = var(g)/D² = %.17g", i, dv, bound)
						}
					} else if dv > bound*(1+1e-12) {
						t.Errorf("row %d: var(dx) = %.17g > var(g)/D² = %.17g", i, dv, bound)
					}
				}
			})
		}
	}
}
