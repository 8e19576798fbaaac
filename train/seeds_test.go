package train

import (
	"context"
	"testing"
)

// TestSeedsRunEveryVariantUnderEverySeed: --seeds 3,5 with two variants is
// four trainings, variant-major, and each (variant, seed) training is the
// very run that variant gives alone under that seed.
func TestSeedsRunEveryVariantUnderEverySeed(t *testing.T) {
	c := tinyTransformer()
	c.Steps, c.Probes.Spectrum = 6, 0
	c.Variants = []string{"layernorm", "rmsnorm"}
	c.Seeds = []int64{3, 5}
	r, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	meta := r.Meta()
	want := []struct {
		spec string
		seed int64
	}{{"layernorm", 3}, {"layernorm", 5}, {"rmsnorm", 3}, {"rmsnorm", 5}}
	if len(meta.Variants) != len(want) {
		t.Fatalf("%d variants in the meta, want %d", len(meta.Variants), len(want))
	}
	for i, w := range want {
		if v := meta.Variants[i]; v.Spec != w.spec || v.Seed != w.seed {
			t.Errorf("variant %d = %s seed %d, want %s seed %d", i, v.Spec, v.Seed, w.spec, w.seed)
		}
	}
	if meta.Config["seeds"] != "3,5" {
		t.Errorf("config seeds = %q", meta.Config["seeds"])
	}
	all := collect(t, context.Background(), r, nil)
	for i, w := range want {
		single := c
		single.Seeds, single.Seed, single.Variants = nil, w.seed, []string{w.spec}
		rs, err := NewRunner(single)
		if err != nil {
			t.Fatal(err)
		}
		alone := collect(t, context.Background(), rs, nil)[0]
		got := all[i]
		if len(got) != len(alone) {
			t.Fatalf("%s seed %d: %d frames, alone %d", w.spec, w.seed, len(got), len(alone))
		}
		for k := range got {
			g, a := got[k], alone[k]
			g.Variant, a.Variant = 0, 0
			if frameText(g) != frameText(a) {
				t.Fatalf("%s seed %d step %d differs from the single-seed run:\n%s\n%s", w.spec, w.seed, k+1, frameText(g), frameText(a))
			}
		}
	}
	if all[0][0].TrainLoss == all[1][0].TrainLoss {
		t.Error("seeds 3 and 5 gave the same first loss: the seed does not reach the variant")
	}
}

func TestSeedsValidation(t *testing.T) {
	c := tinyTransformer()
	c.Seeds = []int64{1, 2, 1}
	if err := c.Validate(); err == nil {
		t.Error("repeated seed accepted")
	}
	c.Seeds = make([]int64, MaxRuns+1)
	for i := range c.Seeds {
		c.Seeds[i] = int64(i)
	}
	if err := c.Validate(); err == nil {
		t.Error("variants × seeds over MaxRuns accepted")
	}
}
