package probes

import (
	"math"
	"testing"

	"github.com/normtop/normtop/normspec"
)

// TestRelativeDistancesHandWorked checks rdist_mu, rdist_var and rdist_psi2
// (spec §5) on numbers worked by hand, against the statistic before the
// batch's update: the layer's own where it has one, the shadow EMA
// (m = 0.5 here) otherwise.
func TestRelativeDistancesHandWorked(t *testing.T) {
	// Step 1 starts every shadow at the batch (distances 0). Step 2
	// compares batch 2 with the shadows as they were after step 1 (batch 1
	// itself); step 3 with their EMA after step 2. Each number by hand below.
	c := NewCollector(0, []string{"l"}, DefaultIntervals(), WithShadowMomentum(0.5))
	b1 := fullTaps([]float64{1, 1}, []float64{3, 4}, []float64{4, 5}, nil, nil, nil)
	b2 := fullTaps([]float64{1, 3}, []float64{3, 8}, []float64{4, 17}, nil, nil, nil)
	b3 := fullTaps([]float64{1, 1}, []float64{3, 4}, []float64{4, 5}, nil, nil, nil)
	v1 := c.measure(1, 0, 1, []*normspec.Taps{b1}).Layers[0]
	v2 := c.measure(2, 0, 1, []*normspec.Taps{b2}).Layers[0]
	v3 := c.measure(3, 0, 1, []*normspec.Taps{b3}).Layers[0]
	want := [][3]float64{
		{0, 0, 0},
		// μ_B − μ = (0, 2), ‖σ‖ = √(3+4) = √7; σ²_B − σ² = (0, 4), ‖σ²‖ = 5;
		// ψ²_B − ψ² = (0, 12), ‖ψ²‖ = √41.
		{2 / math.Sqrt(7), 4.0 / 5, 12 / math.Sqrt(41)},
		// Shadows after step 2 (m = 0.5): μ (1, 2), σ² (3, 6), ψ² (4, 11).
		// μ_B − μ = (0, −1), ‖σ‖ = √9 = 3; σ² (0, −2) over √45; ψ² (0, −6) over √137.
		{1.0 / 3, 2 / math.Sqrt(45), 6 / math.Sqrt(137)},
	}
	for i, v := range []LayerValues{v1, v2, v3} {
		got := [3]float64{v[RdistMu], v[RdistVar], v[RdistPsi2]}
		for k := range got {
			if !sameFloat(got[k], want[i][k]) {
				t.Errorf("step %d: %s = %v, want %v", i+1, [...]Probe{RdistMu, RdistVar, RdistPsi2}[k], got[k], want[i][k])
			}
		}
	}
}

// TestRelativeDistanceZeroDenominator: a running statistic that is zero in
// every feature gives no relative distance (NaN, "not measured"), never Inf,
// and raises no divergence alert.
func TestRelativeDistanceZeroDenominator(t *testing.T) {
	c := NewCollector(0, []string{"l"}, DefaultIntervals())
	tp := fullTaps([]float64{1, 2}, []float64{2, 3}, []float64{3, 7}, []float64{0, 0}, []float64{0, 0}, []float64{0, 0})
	f := c.measure(1, 0, 1, []*normspec.Taps{tp})
	v := f.Layers[0]
	for _, p := range []Probe{RdistMu, RdistVar, RdistPsi2} {
		if v.Has(p) {
			t.Errorf("%s = %v, want no value (zero denominator)", p, v[p])
		}
	}
	if !v.Has(DistVar) || v[DistVar] != math.Sqrt(4+9)/2 {
		t.Errorf("dist_var = %v, want √13/2", v[DistVar])
	}
	for _, a := range f.Alerts {
		if a.Kind == AlertDivergence {
			t.Errorf("divergence alert %q for a zero denominator", a.Msg)
		}
	}
	for _, tc := range []struct {
		name string
		got  float64
	}{
		{"relDist of missing sides", relDist(nil, nil)},
		{"relDist of different lengths", relDist([]float64{1}, []float64{1, 2})},
		{"relDistMean of zero variance", relDistMean([]float64{1}, []float64{0}, []float64{0})},
		{"relDistMean of a missing variance", relDistMean([]float64{1}, []float64{0}, nil)},
	} {
		if !math.IsNaN(tc.got) {
			t.Errorf("%s = %v, want NaN", tc.name, tc.got)
		}
	}
}

// TestRelativeDistanceWarmup: the relative distances to a layer's own
// running statistics share its warm-up window; shadow ones have none.
func TestRelativeDistanceWarmup(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		skipped []Probe
		judged  []Probe
	}{
		{"batchnorm", []Probe{DistMu, DistVar, RdistMu, RdistVar}, []Probe{DistPsi2, RdistPsi2}},
		{"pn-v", []Probe{DistPsi2, RdistPsi2}, []Probe{DistMu, DistVar, RdistMu, RdistVar}},
		{"layernorm", nil, []Probe{DistMu, RdistMu, RdistVar, RdistPsi2}},
	} {
		w, err := WarmupOf(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range tc.skipped {
			if !w.Applies(p) {
				t.Errorf("%s: %s has no window", tc.spec, p)
			}
		}
		for _, p := range tc.judged {
			if w.Applies(p) {
				t.Errorf("%s: %s has a window", tc.spec, p)
			}
		}
	}
}
