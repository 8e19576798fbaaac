package train

import (
	"math"
	"testing"

	"github.com/normtop/normtop/nn"
	"github.com/normtop/normtop/probes"
	"gorgonia.org/tensor"
)

// TestGWNormsByHand: the Frobenius norm over a site's weight matrices,
// worked by hand: ‖(3,4)‖ = 5; (3,4) with (1,2,2): √(25+9) = √34; a site
// that feeds nothing is NaN; float32 gradients alike.
func TestGWNormsByHand(t *testing.T) {
	grads := []*tensor.Dense{tensor.New(tensor.WithBacking([]float64{3, 4})),
		tensor.New(tensor.WithBacking([]float32{1, 2, 2})), tensor.New(tensor.WithBacking([]float64{100}))}
	out := make([]float64, 4)
	gwNorms(out, [][]int{{0}, {0, 1}, nil, {1}}, grads)
	want := []float64{5, math.Sqrt(34), math.NaN(), 3}
	for i := range want {
		if !(out[i] == want[i] || math.IsNaN(out[i]) && math.IsNaN(want[i])) {
			t.Errorf("site %d: %v, want %v", i, out[i], want[i])
		}
	}
}

// TestGWNormRecorded: a training step records, per site, the norm of the
// gradients of exactly the weights the site feeds (post-LN: ln1 the FFN's
// first matrix, ln2 the next block's attention or the output layer), and
// nothing when the Grad group is not due.
func TestGWNormRecorded(t *testing.T) {
	c := tinyTransformer()
	c.Layers, c.Placement, c.Variants = 2, PlacePost, []string{"layernorm"}
	c.Probes.Grad = 2
	r, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	v := r.variants[0]
	for step := 1; step <= 2; step++ {
		d, err := r.step(v, step)
		if err != nil {
			t.Fatal(err)
		}
		f := v.coll.Seal(&d, probes.Running, 0)
		if step == 1 {
			if f.Layers != nil && f.Layers[0].Has(probes.GWNorm) {
				t.Errorf("step 1: gw_norm recorded with the Grad group not due")
			}
			continue
		}
		grads, err := v.train.gradData()
		if err != nil {
			t.Fatal(err)
		}
		norm := func(name string) float64 {
			for i, p := range v.train.params {
				if p.Name() == name {
					return math.Sqrt(nn.SumSq(grads[i].Float32s()))
				}
			}
			t.Fatalf("no param %s", name)
			return 0
		}
		want := map[string]float64{
			"block0.ln1": norm("block0.ffn.fc.w"), "block0.ln2": norm("block1.attn.qkv.w"),
			"block1.ln1": norm("block1.ffn.fc.w"), "block1.ln2": norm("out.w"),
		}
		for l, name := range r.Meta().Layers {
			got := f.Layers[l][probes.GWNorm]
			if w := want[name]; !(w > 0) || math.Abs(got-w) > 1e-9*w {
				t.Errorf("%s: gw_norm %v, want %v", name, got, w)
			}
		}
	}
}
