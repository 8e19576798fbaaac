package tui

import (
	"testing"

	"github.com/normtop/normtop/probes"
)

// TestWarmupShadedOnlyWhereItApplies: the charts shade a probe's warm-up
// window only where probes.RunMeta.LayerWarmup says the probe is measured
// against the layer's own running statistics: batchnorm's dist_mu and
// dist_var, not its shadow distances or gradients, and nothing for a
// variant without running statistics.
func TestWarmupShadedOnlyWhereItApplies(t *testing.T) {
	meta := probes.RunMeta{Layers: []string{"block0.ln1"}, Variants: []probes.VariantMeta{
		{Name: "batchnorm", Spec: "batchnorm:momentum=0.05"}, {Name: "layernorm"},
	}}
	s := newStore(meta)
	bn, ln := &s.variants[0], &s.variants[1]
	for _, c := range []struct {
		name string
		v    *variantData
		p    probes.Probe
		want int
	}{
		{"batchnorm dist_mu: 3/0.05 steps", bn, probes.DistMu, 60},
		{"batchnorm rdist_var", bn, probes.RdistVar, 60},
		{"batchnorm ψ² distance (a shadow statistic)", bn, probes.DistPsi2, 0},
		{"batchnorm gradient norm", bn, probes.GVar, 0},
		{"layernorm dist_mu: no running statistics", ln, probes.DistMu, 0},
	} {
		if got := c.v.warmup(0, c.p); got != c.want {
			t.Errorf("%s: window %d, want %d", c.name, got, c.want)
		}
	}
	if got := bn.warmup(5, probes.DistMu); got != 0 {
		t.Errorf("layer out of range: window %d", got)
	}
}
