package probes

import (
	"reflect"
	"testing"
)

func TestLayerWarmup(t *testing.T) {
	torch := RunMeta{
		Variants: []VariantMeta{{Name: "GPT", Spec: "GPT"}},
		Layers:   []string{"ln", "bn", "bn_cum", "bn_bad"},
		Config: map[string]string{
			"layer.ln.kind": "layernorm",
			"layer.bn.kind": "batchnorm", "layer.bn.momentum": "0.1",
			"layer.bn_cum.kind": "batchnorm", "layer.bn_cum.momentum": CumulativeMomentum,
			"layer.bn_bad.kind": "batchnorm", "layer.bn_bad.momentum": "7",
		},
	}
	own := RunMeta{Variants: []VariantMeta{{Name: "batchnorm", Spec: "batchnorm:momentum=0.05"}, {Name: "layernorm", Spec: "layernorm"}, {Name: "x", Spec: "nosuchvariant"}},
		Layers: []string{"block0.ln1"}}
	bn := []Probe{DistMu, DistVar, RdistMu, RdistVar}
	for _, c := range []struct {
		name  string
		m     RunMeta
		v     int
		layer string
		want  Warmup
		ok    bool
	}{
		{"torch layernorm: no window", torch, 0, "ln", Warmup{}, true},
		{"torch batchnorm at its own momentum 0.1: 30 steps", torch, 0, "bn", Warmup{Steps: 30, Rate: 0.1, Probes: bn}, true},
		{"torch cumulative momentum: no rate", torch, 0, "bn_cum", Warmup{}, false},
		{"torch momentum out of range", torch, 0, "bn_bad", Warmup{}, false},
		{"torch layer the header does not describe: the variant's name is no spec", torch, 0, "other", Warmup{}, false},
		{"own batchnorm: the spec's 60 steps", own, 0, "block0.ln1", Warmup{Steps: 60, Rate: 0.05, Probes: bn}, true},
		{"own layernorm: none", own, 1, "block0.ln1", Warmup{}, true},
		{"own unknown spec", own, 2, "block0.ln1", Warmup{}, false},
		{"variant out of range", own, 9, "block0.ln1", Warmup{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := c.m.LayerWarmup(c.v, c.layer)
			if ok != c.ok || got.Steps != c.want.Steps || got.Rate != c.want.Rate || !reflect.DeepEqual(got.Probes, c.want.Probes) {
				t.Errorf("LayerWarmup(%d, %q) = %+v, %v; want %+v, %v", c.v, c.layer, got, ok, c.want, c.ok)
			}
		})
	}
}
