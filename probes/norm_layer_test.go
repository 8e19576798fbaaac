package probes

import (
	"github.com/normtop/normtop/normspec"
	"math"
	"testing"

	"github.com/normtop/normtop/norm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// runNormLayer trains a real norm layer on batches from gen (entry (i, k) of
// step's batch) with the given tap mask and returns a copy of its taps after
// each step. With TapGrad in the mask it also runs the backward pass of the
// loss Σ y⊙w for a fixed w.
func runNormLayer(t *testing.T, spec string, n, d, steps int, mask normspec.TapMask, gen func(step, i, k int) float64) []*normspec.Taps {
	t.Helper()
	cfg, err := normspec.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	l, err := norm.NewLayer(cfg, norm.Site{Name: "bn", D: d, Heads: 1, Dtype: tensor.Float64})
	if err != nil {
		t.Fatal(err)
	}
	l.SetTraining(true)
	l.SetTapMask(mask)
	g := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(n, d), gorgonia.WithName("x"))
	y, _, err := l.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	if mask&normspec.TapGrad != 0 {
		wv := make([]float64, n*d)
		for i := range wv {
			wv[i] = float64(i%7) - 3
		}
		w := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(n, d), gorgonia.WithName("w"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(n, d), tensor.WithBacking(wv))))
		cost := gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.HadamardProd(y, w))))
		if _, err := gorgonia.Grad(cost, x); err != nil {
			t.Fatal(err)
		}
	}
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	var out []*normspec.Taps
	for step := 1; step <= steps; step++ {
		data := make([]float64, n*d)
		for i := range data {
			data[i] = gen(step, i/d, i%d)
		}
		if err := gorgonia.Let(x, tensor.New(tensor.WithShape(n, d), tensor.WithBacking(data))); err != nil {
			t.Fatal(err)
		}
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
		m.Reset()
		tp := *l.Taps()
		for _, s := range []*[]float64{&tp.BatchMean, &tp.BatchVar, &tp.BatchPsi2, &tp.RunMean, &tp.RunVar, &tp.RunPsi2} {
			if *s != nil {
				*s = append([]float64(nil), (*s)...)
			}
		}
		out = append(out, &tp)
	}
	return out
}

// TestShadowVersusRealLayer: on norm's own batchnorm (momentum 0.05) and
// pn-v (α = 0.9, i.e. m = 0.1) layers, with the shadow rate equal to the
// layer's, the layer's running statistic R (from its init R₀) and the shadow S
// (from batch 1, spec §5) see the same batches, so before step t
// R − S = (1−m)^(t−1)·(R₀ − b₁) exactly, and the two distances differ by at
// most ‖R₀ − b₁‖·(1−m)^(t−1)/d: the own statistic's warm-up of §5, which the
// shadow does not have (its step-1 distance is 0).
func TestShadowVersusRealLayer(t *testing.T) {
	cases := []struct {
		spec     string
		momentum float64
		probe    Probe
		init     float64
	}{
		{"batchnorm", 0.05, DistMu, 0},
		{"pn-v", 0.1, DistPsi2, 1},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			rng := newTestRand(11)
			taps := runNormLayer(t, tc.spec, 6, 8, 60, normspec.TapStats, func(step, i, k int) float64 {
				return (rng.float()-0.5)*float64(k+1) + 0.3*float64(k) + 0.01*float64(step)
			})
			own := NewCollector(0, []string{"bn"}, DefaultIntervals())
			shd := NewCollector(0, []string{"bn"}, DefaultIntervals(), WithShadowMomentum(tc.momentum))
			batch := func(tp *normspec.Taps) []float64 {
				if tc.probe == DistMu {
					return tp.BatchMean
				}
				return tp.BatchPsi2
			}
			b1 := batch(taps[0])
			gap0 := 0.0
			for _, b := range b1 {
				gap0 += (tc.init - b) * (tc.init - b)
			}
			gap0 = math.Sqrt(gap0) / float64(len(b1))
			for i, tp := range taps {
				if tp.RunMean == nil && tp.RunPsi2 == nil {
					t.Fatalf("%s has no own running statistic", tc.spec)
				}
				hidden := *tp
				hidden.RunMean, hidden.RunVar, hidden.RunPsi2 = nil, nil, nil
				a := own.measure(i+1, 0, 1, []*normspec.Taps{tp}).Layers[0][tc.probe]
				b := shd.measure(i+1, 0, 1, []*normspec.Taps{&hidden}).Layers[0][tc.probe]
				bound := gap0 * math.Pow(1-tc.momentum, float64(i))
				if i == 0 && (b != 0 || !sameFloat(a, gap0)) {
					t.Fatalf("step 1 %s: own %v (want %v), shadow %v (want 0)", tc.probe, a, gap0, b)
				}
				if !(a > 0) || math.Abs(a-b) > bound*(1+1e-9) {
					t.Fatalf("step %d %s: own %v, shadow %v, |own − shadow| > %v", i+1, tc.probe, a, b, bound)
				}
			}
		})
	}
}

// TestRealPowerNormNuGrowthAlert drives a real powernorm layer into
// Γ > 2/(1-α_b): feature 0 is tiny for 40 steps (running ψ²₀ small), then
// carries most of the energy; the Collector must raise one nu_growth alert
// at the first such step, and none before.
func TestRealPowerNormNuGrowthAlert(t *testing.T) {
	const n, d, quiet = 16, 8, 40
	rng := newTestRand(4)
	taps := runNormLayer(t, "powernorm:warmup=0,groups=1", n, d, quiet+5, normspec.TapAll, func(step, i, k int) float64 {
		v := rng.float() - 0.5
		if k == 0 {
			if step <= quiet {
				return 0.01 * v
			}
			return 20 + v
		}
		return v
	})
	c := NewCollector(0, []string{"pn"}, DefaultIntervals(), WithAlphaBwd(0.9))
	var fired []Alert
	for i, tp := range taps {
		f := c.measure(i+1, 0, 1, []*normspec.Taps{tp})
		if !f.Layers[0].Has(PNGamma) || !f.Layers[0].Has(PNNu) || !f.Layers[0].Has(GPsi2) {
			t.Fatalf("step %d: powernorm probes missing: %v", i+1, f.Layers[0])
		}
		fired = append(fired, alertsOf([]Frame{f}, AlertNuGrowth)...)
	}
	if len(fired) != 1 || fired[0].Step != quiet+1 || !(fired[0].Value > 20) || !sameFloat(fired[0].Threshold, 2/(1-0.9)) {
		t.Fatalf("nu_growth alerts = %+v, want one at step %d with Γ > 20", fired, quiet+1)
	}
}
