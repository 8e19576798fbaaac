package probes

import (
	"github.com/normtop/normtop/normspec"
	"math"
	"strings"
	"testing"
)

var nan = math.NaN()

// fullTaps returns taps with every group computed and distinct scalar values.
func fullTaps(mu, v, psi2, runMu, runVar, runPsi2 []float64) *normspec.Taps {
	return &normspec.Taps{
		Step: 1, N: 4, D: len(mu), Mask: normspec.TapAll,
		BatchMean: mu, BatchVar: v, BatchPsi2: psi2,
		RunMean: runMu, RunVar: runVar, RunPsi2: runPsi2,
		InMean: 0.25, InStd: 1.5, InMaxAbs: 3.5, AdaFrac: nan, PNGamma: nan,
		GMu: 0.125, GVar: 0.0625, GPsi2: nan,
		DxMean: 1e-3, DxVar: 2e-3, DyMean: 3e-3, DyVar: 4e-3, NuNorm: nan, HNorm: nan, HNormCV: nan,
		GammaDrift: 0.5, BetaNorm: 0.75,
	}
}

func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

func checkValues(t *testing.T, got, want LayerValues) {
	t.Helper()
	for p := Probe(0); p < NumProbes; p++ {
		if !sameFloat(got[p], want[p]) {
			t.Errorf("%s = %v, want %v", p, got[p], want[p])
		}
	}
}

func TestFrameLayerValues(t *testing.T) {
	mu, v, psi2 := []float64{1, 2}, []float64{2, 3}, []float64{3, 7}
	cases := []struct {
		name string
		iv   Intervals
		step int
		taps *normspec.Taps
		want func() LayerValues
	}{{
		name: "own running stats for mean and var, shadow for psi2 (starts at the batch: 0)",
		iv:   DefaultIntervals(), step: 1,
		taps: fullTaps(mu, v, psi2, []float64{0, 0}, []float64{1, 1}, nil),
		want: func() LayerValues {
			w := EmptyLayerValues()
			w[DistMu] = math.Sqrt(1+4) / 2
			w[DistVar] = math.Sqrt(1+4) / 2
			w[DistPsi2] = 0
			// ‖μ_B − 0‖/‖√1‖ and ‖σ²_B − 1‖/‖1‖ over 2 features: √5/√2 each.
			w[RdistMu], w[RdistVar], w[RdistPsi2] = math.Sqrt(5.0/2), math.Sqrt(5.0/2), 0
			w[InMean], w[InStd], w[InMaxAbs] = 0.25, 1.5, 3.5
			w[GMu], w[GVar] = 0.125, 0.0625
			w[DxMean], w[DxVar], w[DyMean], w[DyVar] = 1e-3, 2e-3, 3e-3, 4e-3
			w[GammaDrift], w[BetaNorm] = 0.5, 0.75
			return w
		},
	}, {
		name: "own running stats differ from the shadow's init",
		iv:   DefaultIntervals(), step: 1,
		taps: fullTaps(mu, v, psi2, []float64{1, 1}, []float64{2, 5}, []float64{3, 3}),
		want: func() LayerValues {
			w := EmptyLayerValues()
			w[DistMu], w[DistVar], w[DistPsi2] = 1.0/2, 2.0/2, 4.0/2
			// ‖(0,1)‖/√(2+5), ‖(0,−2)‖/‖(2,5)‖, ‖(0,4)‖/‖(3,3)‖.
			w[RdistMu], w[RdistVar], w[RdistPsi2] = 1/math.Sqrt(7), 2/math.Sqrt(29), 4/math.Sqrt(18)
			w[InMean], w[InStd], w[InMaxAbs] = 0.25, 1.5, 3.5
			w[GMu], w[GVar] = 0.125, 0.0625
			w[DxMean], w[DxVar], w[DyMean], w[DyVar] = 1e-3, 2e-3, 3e-3, 4e-3
			w[GammaDrift], w[BetaNorm] = 0.5, 0.75
			return w
		},
	}, {
		name: "powernorm scalars ride with stats and grad",
		iv:   DefaultIntervals(), step: 1,
		taps: func() *normspec.Taps {
			tp := fullTaps(mu, v, psi2, nil, nil, []float64{1, 1})
			tp.PNGamma, tp.NuNorm, tp.GPsi2, tp.GMu, tp.GVar = 1.25, 0.5, 0.375, nan, nan
			return tp
		}(),
		want: func() LayerValues {
			w := EmptyLayerValues()
			w[DistMu], w[DistVar] = 0, 0 // shadows start from this first batch
			w[DistPsi2] = math.Sqrt(4+36) / 2
			w[RdistMu], w[RdistVar], w[RdistPsi2] = 0, 0, math.Sqrt(40.0/2)
			w[InMean], w[InStd], w[InMaxAbs] = 0.25, 1.5, 3.5
			w[PNGamma], w[PNNu], w[GPsi2] = 1.25, 0.5, 0.375
			w[DxMean], w[DxVar], w[DyMean], w[DyVar] = 1e-3, 2e-3, 3e-3, 4e-3
			w[GammaDrift], w[BetaNorm] = 0.5, 0.75
			return w
		},
	}, {
		name: "grad group not due: its probes are NaN",
		iv:   Intervals{Stats: 1, Grad: 2, Params: 1}, step: 1,
		taps: fullTaps(mu, v, psi2, nil, nil, nil),
		want: func() LayerValues {
			w := EmptyLayerValues()
			w[DistMu], w[DistVar], w[DistPsi2] = 0, 0, 0 // shadows start from this first batch
			w[RdistMu], w[RdistVar], w[RdistPsi2] = 0, 0, 0
			w[InMean], w[InStd], w[InMaxAbs] = 0.25, 1.5, 3.5
			w[GammaDrift], w[BetaNorm] = 0.5, 0.75
			return w
		},
	}, {
		name: "group due but not in the taps' mask: NaN",
		iv:   DefaultIntervals(), step: 1,
		taps: func() *normspec.Taps {
			tp := fullTaps(mu, v, psi2, nil, nil, nil)
			tp.Mask = normspec.TapGrad
			tp.AdaFrac = 0.001
			return tp
		}(),
		want: func() LayerValues {
			w := EmptyLayerValues()
			w[GMu], w[GVar] = 0.125, 0.0625
			w[DxMean], w[DxVar], w[DyMean], w[DyVar] = 1e-3, 2e-3, 3e-3, 4e-3
			return w
		},
	}, {
		name: "adanorm fraction",
		iv:   DefaultIntervals(), step: 1,
		taps: func() *normspec.Taps {
			tp := fullTaps(mu, v, psi2, nil, nil, nil)
			tp.AdaFrac = 0.004
			tp.Mask = normspec.TapStats
			return tp
		}(),
		want: func() LayerValues {
			w := EmptyLayerValues()
			w[DistMu], w[DistVar], w[DistPsi2] = 0, 0, 0 // shadows start from this first batch
			w[RdistMu], w[RdistVar], w[RdistPsi2] = 0, 0, 0
			w[InMean], w[InStd], w[InMaxAbs] = 0.25, 1.5, 3.5
			w[AdaFrac] = 0.004
			return w
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(2, []string{"block0.ln1"}, tc.iv)
			f := c.measure(tc.step, 0.5, 2.25, []*normspec.Taps{tc.taps})
			if f.Variant != 2 || f.Step != tc.step || f.Epoch != 0.5 || f.TrainLoss != 2.25 || f.Status != Running {
				t.Fatalf("frame header = %+v", f)
			}
			if len(f.Alerts) != 0 {
				t.Errorf("alerts = %+v, want none", f.Alerts)
			}
			if len(f.Layers) != 1 {
				t.Fatalf("len(Layers) = %d, want 1", len(f.Layers))
			}
			checkValues(t, f.Layers[0], tc.want())
		})
	}
}

func TestFrameNothingDue(t *testing.T) {
	c := NewCollector(0, []string{"a", "b"}, Intervals{Stats: 3, Grad: 3, Params: 0})
	for step := 1; step <= 3; step++ {
		if m := c.TapMask(step); (m != 0) != (step == 3) {
			t.Fatalf("TapMask(%d) = %b", step, m)
		}
	}
	f := c.measure(1, 0, 1, []*normspec.Taps{nil, nil})
	if f.Layers != nil {
		t.Fatalf("Layers = %v, want nil when nothing is due", f.Layers)
	}
	f = c.measure(3, 0, 1, []*normspec.Taps{nil, fullTaps([]float64{1}, []float64{1}, []float64{1}, nil, nil, nil)})
	if len(f.Layers) != 2 || f.Layers[0].Has(DistMu) || !f.Layers[1].Has(DistMu) || f.Layers[1].Has(GammaDrift) {
		t.Fatalf("Layers = %v", f.Layers)
	}
}

func TestTapMask(t *testing.T) {
	cases := []struct {
		iv   Intervals
		step int
		want normspec.TapMask
	}{
		{DefaultIntervals(), 1, normspec.TapAll},
		{DefaultIntervals(), 7, normspec.TapAll},
		{Intervals{Stats: 2, Grad: 3, Params: 0}, 2, normspec.TapStats},
		{Intervals{Stats: 2, Grad: 3, Params: 0}, 3, normspec.TapGrad},
		{Intervals{Stats: 2, Grad: 3, Params: 5}, 30, normspec.TapAll},
		{Intervals{}, 1, 0},
	}
	for _, tc := range cases {
		if got := NewCollector(0, nil, tc.iv).TapMask(tc.step); got != tc.want {
			t.Errorf("%+v step %d: TapMask = %b, want %b", tc.iv, tc.step, got, tc.want)
		}
	}
	c := NewCollector(0, nil, DefaultIntervals())
	if c.WantSpectrum(99) || !c.WantSpectrum(100) || !c.WantSpectrum(300) {
		t.Error("WantSpectrum: want every 100th step only")
	}
	if err := (Intervals{Stats: 1, Grad: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "grad=-1") {
		t.Errorf("Validate = %v, want an error naming grad=-1", err)
	}
	if err := DefaultIntervals().Validate(); err != nil {
		t.Errorf("Validate(defaults) = %v", err)
	}
}

// TestShadowUpdate works spec §5's shadows by hand (m = 0.05, n = 4):
// they start from the first batch (step 1: every distance 0, step 2: the
// distance to batch 1) and all three move at one rate, so after a third
// batch equal to the first every distance is exactly m times step 2's.
//
//	batch 1: μ = [1, 2],   σ² = [2, 3],   ψ² = [3, 7]
//	batch 2: μ = [-1, .5], σ² = [.5, 4],  ψ² = [1.5, 4.25]
//	step 2:  dist_mu = ‖(2, 1.5)‖/2 = 1.25, dist_var = ‖(1.5, 1)‖/2,
//	         dist_psi2 = ‖(1.5, 2.75)‖/2
//	step 3 (batch 1 again): shadow = 0.95·b1 + 0.05·b2, so each distance is
//	         0.05·‖b1 − b2‖/2: dist_mu = 0.0625.
func TestShadowUpdate(t *testing.T) {
	c := NewCollector(0, []string{"l"}, DefaultIntervals())
	b1 := fullTaps([]float64{1, 2}, []float64{2, 3}, []float64{3, 7}, nil, nil, nil)
	b2 := fullTaps([]float64{-1, 0.5}, []float64{0.5, 4}, []float64{1.5, 4.25}, nil, nil, nil)
	step2 := [...]float64{1.25, math.Sqrt(1.5*1.5+1) / 2, math.Sqrt(1.5*1.5+2.75*2.75) / 2}
	probes := [...]Probe{DistMu, DistVar, DistPsi2}
	check := func(step int, f Frame, want [3]float64) {
		t.Helper()
		for j, p := range probes {
			if got := f.Layers[0][p]; !sameFloat(got, want[j]) {
				t.Errorf("step %d: %s = %.17g, want %.17g", step, p, got, want[j])
			}
		}
	}
	check(1, c.measure(1, 0, 1, []*normspec.Taps{b1}), [3]float64{})
	check(2, c.measure(2, 0, 1, []*normspec.Taps{b2}), step2)
	f3 := c.measure(3, 0, 1, []*normspec.Taps{b1})
	check(3, f3, [3]float64{0.05 * step2[0], 0.05 * step2[1], 0.05 * step2[2]})
	if got := f3.Layers[0][DistMu]; math.Abs(got-0.0625) > 1e-15 {
		t.Errorf("step 3: dist_mu = %v, want 0.0625", got)
	}

	// A batch with a NaN statistic is reported as divergence and not folded
	// into the shadow: the next step sees the same shadow as step 2 did.
	c = NewCollector(0, []string{"l"}, DefaultIntervals())
	c.measure(1, 0, 1, []*normspec.Taps{b1})
	bad := fullTaps([]float64{nan, 1}, []float64{2, 3}, []float64{3, 7}, nil, nil, nil)
	fb := c.measure(2, 0, 1, []*normspec.Taps{bad})
	if a := alertsOf([]Frame{fb}, AlertDivergence); len(a) != 1 || !strings.Contains(a[0].Msg, "l dist_mu") {
		t.Errorf("NaN batch mean: alerts %+v, want a divergence naming l dist_mu", fb.Alerts)
	}
	check(3, c.measure(3, 0, 1, []*normspec.Taps{b2}), step2)

	// A NaN in the very first batch neither starts the shadow nor hides the
	// divergence: the next finite batch starts it.
	c = NewCollector(0, []string{"l"}, DefaultIntervals())
	fb = c.measure(1, 0, 1, []*normspec.Taps{bad})
	if a := alertsOf([]Frame{fb}, AlertDivergence); len(a) != 1 {
		t.Errorf("NaN first batch: alerts %+v, want one divergence", fb.Alerts)
	}
	c.measure(2, 0, 1, []*normspec.Taps{b1})
	check(3, c.measure(3, 0, 1, []*normspec.Taps{b2}), step2)

	// One row has no variance: n = 1 neither starts nor moves the variance
	// shadow, while μ and ψ² fold in as usual.
	c = NewCollector(0, []string{"l"}, DefaultIntervals())
	one := fullTaps([]float64{-1, 0.5}, []float64{0, 0}, []float64{1.5, 4.25}, nil, nil, nil)
	one.N = 1
	c.measure(1, 0, 1, []*normspec.Taps{one})
	c.measure(2, 0, 1, []*normspec.Taps{b1})
	f := c.measure(3, 0, 1, []*normspec.Taps{b2})
	if got := f.Layers[0][DistVar]; !sameFloat(got, step2[1]) {
		t.Errorf("after an n=1 batch: dist_var = %v, want %v (variance shadow started at batch 1)", got, step2[1])
	}

	// WithShadowMomentum changes m for all three.
	c = NewCollector(0, []string{"l"}, DefaultIntervals(), WithShadowMomentum(0.5))
	c.measure(1, 0, 1, []*normspec.Taps{b1})
	c.measure(2, 0, 1, []*normspec.Taps{b2})
	check(3, c.measure(3, 0, 1, []*normspec.Taps{b1}), [3]float64{0.5 * step2[0], 0.5 * step2[1], 0.5 * step2[2]})
}

// TestShadowIsPlainEMA feeds 300 random batches and compares the shadow
// distances with an EMA kept in the test: started from batch 1, one rate m
// for μ, σ² and ψ², no n/(n−1) factor.
func TestShadowIsPlainEMA(t *testing.T) {
	const d, n, m, steps = 8, 5, 0.05, 300
	shd := NewCollector(0, []string{"ln"}, DefaultIntervals())
	var run [3][]float64
	rng := newTestRand(1)
	for step := 1; step <= steps; step++ {
		mu, v, psi2 := make([]float64, d), make([]float64, d), make([]float64, d)
		for k := 0; k < d; k++ {
			mu[k] = 2*rng.float() - 1 + 0.5*float64(k)
			v[k] = 0.1 + rng.float()*float64(k+1)
			psi2[k] = v[k] + mu[k]*mu[k]
		}
		tShd := fullTaps(mu, v, psi2, nil, nil, nil)
		tShd.N = n
		got := shd.measure(step, 0, 1, []*normspec.Taps{tShd}).Layers[0]
		for j, b := range [3][]float64{mu, v, psi2} {
			if run[j] == nil {
				run[j] = append([]float64(nil), b...)
			}
			p := [...]Probe{DistMu, DistVar, DistPsi2}[j]
			if want := dist(b, run[j]); !sameFloat(got[p], want) {
				t.Fatalf("step %d: %s = %v, want %v", step, p, got[p], want)
			}
			for k := range b {
				run[j][k] = (1-m)*run[j][k] + m*b[k]
			}
		}
	}
}

// testRand is a tiny deterministic generator so tests do not depend on
// math/rand's stream.
type testRand struct{ s uint64 }

func newTestRand(seed uint64) *testRand { return &testRand{s: seed*0x9E3779B97F4A7C15 + 1} }

func (r *testRand) float() float64 {
	r.s ^= r.s << 13
	r.s ^= r.s >> 7
	r.s ^= r.s << 17
	return float64(r.s>>11) / (1 << 53)
}
