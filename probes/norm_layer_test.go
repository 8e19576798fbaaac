package probes

import (
	"testing"

	"github.com/normtop/normtop/norm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// runNormLayer trains a real norm layer forward on random batches and
// returns a copy of its taps after each step.
func runNormLayer(t *testing.T, spec string, n, d, steps int) []*norm.Taps {
	t.Helper()
	cfg, err := norm.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	l, err := norm.NewLayer(cfg, norm.Site{Name: "bn", D: d, Heads: 1, Dtype: tensor.Float64})
	if err != nil {
		t.Fatal(err)
	}
	l.SetTraining(true)
	l.SetTapMask(norm.TapStats)
	g := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(n, d), gorgonia.WithName("x"))
	if _, _, err := l.Apply(x); err != nil {
		t.Fatal(err)
	}
	m := gorgonia.NewTapeMachine(g)
	defer m.Close()
	rng := newTestRand(11)
	var out []*norm.Taps
	for step := 0; step < steps; step++ {
		data := make([]float64, n*d)
		for i := range data {
			k := i % d
			data[i] = (rng.float()-0.5)*float64(k+1) + 0.3*float64(k) + 0.01*float64(step)
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

// TestShadowEqualsRealLayer: on norm's own batchnorm (momentum 0.05) and pn-v
// (α = 0.9, i.e. m = 0.1) layers, the distances to the layer's running
// statistics equal the shadow distances of the same taps with the running
// statistics hidden, when the shadow momentum equals the layer's.
func TestShadowEqualsRealLayer(t *testing.T) {
	cases := []struct {
		spec     string
		momentum float64
		probes   []Probe
	}{
		{"batchnorm", 0.05, []Probe{DistMu, DistVar}},
		{"pn-v", 0.1, []Probe{DistPsi2}},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			taps := runNormLayer(t, tc.spec, 6, 8, 60)
			own := NewCollector(0, []string{"bn"}, DefaultIntervals())
			shd := NewCollector(0, []string{"bn"}, DefaultIntervals(), WithShadowMomentum(tc.momentum))
			for i, tp := range taps {
				for _, p := range tc.probes {
					var run []float64
					switch p {
					case DistMu:
						run = tp.RunMean
					case DistVar:
						run = tp.RunVar
					case DistPsi2:
						run = tp.RunPsi2
					}
					if run == nil {
						t.Fatalf("%s has no own running statistic for %s", tc.spec, p)
					}
				}
				hidden := *tp
				hidden.RunMean, hidden.RunVar, hidden.RunPsi2 = nil, nil, nil
				a := own.Frame(i+1, 0, 1, []*norm.Taps{tp}).Layers[0]
				b := shd.Frame(i+1, 0, 1, []*norm.Taps{&hidden}).Layers[0]
				for _, p := range tc.probes {
					if !(a[p] > 0) || !sameFloat(a[p], b[p]) {
						t.Fatalf("step %d %s: own %v, shadow %v", i+1, p, a[p], b[p])
					}
				}
			}
		})
	}
}
