package probes

import "testing"

func TestWarmupOf(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		steps int
		rate  float64
		skips []Probe
		keeps []Probe
	}{
		{"batchnorm", 60, 0.05, []Probe{DistMu, DistVar}, []Probe{DistPsi2, GVar, GMu}},
		{"batchnorm:momentum=0.1", 30, 0.1, []Probe{DistMu, DistVar}, []Probe{DistPsi2}},
		{"batchnorm:momentum=0.07", 43, 0.07, []Probe{DistVar}, nil}, // 3/0.07 = 42.86
		{"pn-v", 30, 0.1, []Probe{DistPsi2}, []Probe{DistMu, DistVar, GPsi2}},
		{"pn-v:alpha=0.95", 60, 0.05, []Probe{DistPsi2}, nil},
		{"powernorm:alpha_fwd=0.99", 300, 0.01, []Probe{DistPsi2}, nil},
		{"layernorm", 0, 0, nil, []Probe{DistMu, DistVar, DistPsi2}},
		{"none", 0, 0, nil, []Probe{DistVar}},
	} {
		w, err := WarmupOf(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if w.Steps != tc.steps || w.Rate < tc.rate-1e-12 || w.Rate > tc.rate+1e-12 {
			t.Errorf("%s: window %d at rate %v, want %d at %v", tc.spec, w.Steps, w.Rate, tc.steps, tc.rate)
		}
		for _, p := range tc.skips {
			if !w.Skips(p, 1) || !w.Skips(p, tc.steps) || w.Skips(p, tc.steps+1) {
				t.Errorf("%s: %s must skip steps 1..%d only", tc.spec, p, tc.steps)
			}
		}
		for _, p := range tc.keeps {
			if w.Skips(p, 1) {
				t.Errorf("%s: %s has no window", tc.spec, p)
			}
		}
	}
	if _, err := WarmupOf("batchnorm:momentum=x"); err == nil {
		t.Error("a bad spec must fail")
	}
}
