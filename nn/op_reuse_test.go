package nn

import (
	"math"
	"math/rand"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestFullOutputsOverwriteStaleBuffers: the ops that take their previous
// output back unzeroed (OutBufFull) write every element, so a stale buffer
// full of NaN gives the same output as a fresh one.
func TestFullOutputsOverwriteStaleBuffers(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	rnd := func(shape ...int) *tensor.Dense {
		x := NewDense(tensor.Float32, shape...)
		for i, d := 0, x.Data().([]float32); i < len(d); i++ {
			d[i] = float32(r.NormFloat64())
		}
		return x
	}
	real := []bool{true, true, false, true, true, true, false, false}
	attnIn := func(causal bool, mask *[]bool, lay Layout) *attnOp {
		return &attnOp{OpBase: NewOpBase("Attention"), n: 8, maxT: 4, lay: &lay, h: 2, d: 4, causal: causal, real: mask}
	}
	attn := func(causal bool, mask *[]bool) *attnOp { return attnIn(causal, mask, Layout{2, 4}) }
	cases := []struct {
		name string
		do   func(pre G.Value, in []G.Value) (G.Value, error)
		in   []G.Value
	}{
		{"AddBias/matrix", (&biasOp{OpBase: NewOpBase("AddBias"), dims: 2}).do, []G.Value{rnd(5, 9), rnd(9)}},
		{"AddBias/image", (&biasOp{OpBase: NewOpBase("AddBias"), dims: 4}).do, []G.Value{rnd(2, 3, 2, 5), rnd(3)}},
		{"ReLU", (&reluOp{OpBase: NewOpBase("ReLU"), dims: 2}).do, []G.Value{rnd(5, 9)}},
		{"ReLUGrad", (&reluGradOp{OpBase: NewOpBase("ReLUGrad"), dims: 2}).do, []G.Value{rnd(5, 9), rnd(5, 9)}},
		{"AddBiasGrad/matrix", (&biasGradOp{OpBase: NewOpBase("AddBiasGrad"), dims: 2, c: 9}).do, []G.Value{rnd(5, 9)}},
		{"AddBiasGrad/image", (&biasGradOp{OpBase: NewOpBase("AddBiasGrad"), dims: 4, c: 3}).do, []G.Value{rnd(2, 3, 2, 5)}},
		{"CausalAttention", attn(true, nil).do, []G.Value{rnd(8, 12)}},
		{"Attention/keymask", attn(false, &real).do, []G.Value{rnd(8, 12)}},
		{"CausalAttentionGrad", (&attnGradOp{OpBase: NewOpBase("AttentionGrad"), fwd: attn(true, nil)}).do, []G.Value{rnd(8, 12), rnd(8, 4)}},
		{"AttentionGrad/keymask", (&attnGradOp{OpBase: NewOpBase("AttentionGrad"), fwd: attn(false, &real)}).do, []G.Value{rnd(8, 12), rnd(8, 4)}},
		// a token-budget batch of 2 sequences of 3 rows in 8: rows 6, 7 are padding
		{"Attention/short layout", attnIn(true, &real, Layout{2, 3}).do, []G.Value{rnd(8, 12)}},
		{"AttentionGrad/short layout", (&attnGradOp{OpBase: NewOpBase("AttentionGrad"), fwd: attnIn(false, nil, Layout{1, 3})}).do, []G.Value{rnd(8, 12), rnd(8, 4)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fresh, err := c.do(nil, c.in)
			if err != nil {
				t.Fatal(err)
			}
			want := append([]float32(nil), fresh.Data().([]float32)...)
			stale := fresh.(*tensor.Dense)
			for i, d := 0, stale.Data().([]float32); i < len(d); i++ {
				d[i] = float32(math.NaN())
			}
			got, err := c.do(stale, c.in)
			if err != nil {
				t.Fatal(err)
			}
			if got.(*tensor.Dense).Uintptr() != stale.Uintptr() {
				t.Fatal("the previous output was not reused")
			}
			for i, v := range got.Data().([]float32) {
				if math.Float32bits(v) != math.Float32bits(want[i]) {
					t.Fatalf("[%d] = %v from a stale buffer, %v from a fresh one", i, v, want[i])
				}
			}
		})
	}
}
