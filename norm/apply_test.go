package norm

import (
	"github.com/normtop/normtop/normspec"
	"math"
	"math/rand"
	"testing"

	"gorgonia.org/tensor"
)

// TestApplyEveryVariant: Apply works in a graph for every variant and both
// dtypes, returns γ/β exactly for the variants that have them, and gives
// finite outputs and gradients of the right sizes.
func TestApplyEveryVariant(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, v := range normspec.Variants() {
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			t.Run(v.Name+"/"+dt.String(), func(t *testing.T) {
				l := mustLayer(t, v.Name, Site{Name: "s", D: 8, Heads: 2, Warmup: 2, Dtype: dt, SampleRows: 5})
				h := newHarness(t, l, 5, true)
				wantParams := 0
				if l.cfg.Kind.HasAffine() {
					wantParams = 2
				}
				if got := len(h.grads) - 1; got != wantParams {
					t.Fatalf("%d parameter gradients, want %d", got, wantParams)
				}
				for step := 0; step < 3; step++ {
					y, _, dx, dg, db := h.run(t, randSlice(r, 40, 1, 0.5), lossWeights(r, 5, 8, nil))
					for name, s := range map[string][]float64{"y": y, "dx": dx, "dγ": dg, "dβ": db} {
						for _, f := range s {
							if math.IsNaN(f) || math.IsInf(f, 0) {
								t.Fatalf("step %d: %s has %v", step, name, f)
							}
						}
					}
					if len(y) != 40 || len(dx) != 40 {
						t.Fatalf("y/dx sizes %d/%d, want 40", len(y), len(dx))
					}
				}
				if l.Taps().Step != 3 {
					t.Errorf("step counter %d after 3 training steps, want 3", l.Taps().Step)
				}
			})
		}
	}
}
