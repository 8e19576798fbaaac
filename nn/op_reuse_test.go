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
	// an op's Do with a given previous output, from the op of the node
	// build makes of the inputs' shapes
	via := func(build func(in G.Nodes) (*G.Node, error), in ...G.Value) func(pre G.Value, _ []G.Value) (G.Value, error) {
		g := G.NewGraph()
		var nodes G.Nodes
		for _, v := range in {
			nodes = append(nodes, G.NewTensor(g, G.Float32, v.Shape().Dims(), G.WithShape(v.Shape()...)))
		}
		n, err := build(nodes)
		if err != nil {
			t.Fatal(err)
		}
		op := n.Op().(*graphOp)
		return func(pre G.Value, in []G.Value) (G.Value, error) {
			op.last = pre
			return op.Do(in...)
		}
	}
	relu := func(in G.Nodes) (*G.Node, error) { return ReLU(in[0]) }
	reluBack := func(in G.Nodes) (*G.Node, error) {
		ns, err := reluGrad(in[:1], in[1])
		if err != nil {
			return nil, err
		}
		return ns[0], nil
	}
	bias := func(in G.Nodes) (*G.Node, error) { return AddBias(in[0], in[1]) }
	biasBack := func(in G.Nodes) (*G.Node, error) { return biasGrad(in[0]) }
	in := func(vs ...G.Value) []G.Value { return vs }
	x59, x2325, g59 := rnd(5, 9), rnd(2, 3, 2, 5), rnd(5, 9)
	cases := []struct {
		name string
		do   func(pre G.Value, in []G.Value) (G.Value, error)
		in   []G.Value
	}{
		{"AddBias/matrix", via(bias, x59, rnd(9)), in(x59, rnd(9))},
		{"AddBias/image", via(bias, x2325, rnd(3)), in(x2325, rnd(3))},
		{"ReLU", via(relu, x59), in(x59)},
		{"ReLUGrad", via(reluBack, x59, g59), in(x59, g59)},
		{"AddBiasGrad/matrix", via(biasBack, x59), in(x59)},
		{"AddBiasGrad/image", via(biasBack, x2325), in(x2325)},
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
