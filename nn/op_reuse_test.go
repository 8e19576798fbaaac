package nn

import (
	"math"
	"math/rand"
	"testing"

	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestFullOutputsOverwriteStaleBuffers: the ops that take their previous
// output back unzeroed (not Accumulates) write every element, so a stale buffer
// full of NaN gives the same output as a fresh one.
func TestFullOutputsOverwriteStaleBuffers(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	rnd := func(shape ...int) *tensor.Dense {
		x := graphop.NewDense(tensor.Float32, shape...)
		for i, d := 0, x.Data().([]float32); i < len(d); i++ {
			d[i] = float32(r.NormFloat64())
		}
		return x
	}
	// the Do of the op of the node build makes of inputs shaped as in; the
	// op keeps its output, so its second run gets the first one's back
	type build func(in G.Nodes) (*G.Node, error)
	via := func(b build, in ...G.Value) func(in []G.Value) (G.Value, error) {
		g := G.NewGraph()
		var nodes G.Nodes
		for _, v := range in {
			nodes = append(nodes, G.NewTensor(g, G.Float32, v.Shape().Dims(), G.WithShape(v.Shape()...)))
		}
		n, err := b(nodes)
		if err != nil {
			t.Fatal(err)
		}
		return func(in []G.Value) (G.Value, error) { return n.Op().Do(in...) }
	}
	// the gradient op of the node fwd builds of in[0], given the upstream
	// gradient in[1]
	gradOf := func(fwd build) build {
		return func(in G.Nodes) (*G.Node, error) {
			y, err := fwd(in[:1])
			if err != nil {
				return nil, err
			}
			d, _ := graphop.Of(y)
			ns, err := d.Grad(in[:1], in[1])
			if err != nil {
				return nil, err
			}
			return ns[0], nil
		}
	}
	relu := func(in G.Nodes) (*G.Node, error) { return ReLU(in[0]) }
	bias := func(in G.Nodes) (*G.Node, error) { return AddBias(in[0], in[1]) }
	biasBack := func(in G.Nodes) (*G.Node, error) { return biasGrad(in[0]) }
	matmul := func(in G.Nodes) (*G.Node, error) { return MatMul(in[0], in[1], false) }
	idx := []int32{3, 0, 3, 1, 4}
	embed := func(in G.Nodes) (*G.Node, error) { return Embed(in[0], &idx) }
	pos := []int32{0, 2, 1, 3, 0}
	positions := func(in G.Nodes) (*G.Node, error) { return AddPositions(in[0], 1.5, &pos, Sinusoids(4, 9)) }
	dropout := func(in G.Nodes) (*G.Node, error) {
		y, op, err := Dropout(in[0], 0.3, NewStream(3))
		if op != nil {
			op.freeze = true // the same mask on both runs
		}
		return y, err
	}
	toRows := func(in G.Nodes) (*G.Node, error) { return ToRows(in[0]) }
	fromRows := func(in G.Nodes) (*G.Node, error) { return FromRows(in[0], 2, 3, 2, 5) }
	real := []bool{true, true, false, true, true, true, false, false}
	attnIn := func(causal bool, mask *[]bool, lay Layout) build {
		return func(in G.Nodes) (*G.Node, error) { return AttentionLayout(in[0], &lay, 4, 2, causal, mask) }
	}
	attn := func(causal bool, mask *[]bool) build { return attnIn(causal, mask, Layout{2, 4}) }
	in := func(vs ...G.Value) []G.Value { return vs }
	// the convolutions: ConvRows at stride 1 on its whole-output path (made
	// to run on these small images), at stride 2 by blocks; Conv2D
	withImplicitAnySize(t, true)
	convRows := func(stride int) build {
		return func(in G.Nodes) (*G.Node, error) { return ConvRows(in[0], in[1], 2, 5, 5, stride, 1, false) }
	}
	conv2D := func(in G.Nodes) (*G.Node, error) { return Conv2DPadded(in[0], in[1], 1, 1, false) }
	// gradient k (0: the input's, 1: the filters') of the convolution fwd
	// builds of in[0], in[1], given the upstream gradient in[2]
	convGrad := func(fwd build, k int) build {
		return func(in G.Nodes) (*G.Node, error) {
			y, err := fwd(in[:2])
			if err != nil {
				return nil, err
			}
			d, _ := graphop.Of(y)
			ns, err := d.Grad(in[:2], in[2])
			if err != nil {
				return nil, err
			}
			return ns[k], nil
		}
	}
	pix, w4 := rnd(2*5*5, 3), rnd(4, 3, 3, 3)
	dy1, dy2, img, dimg := rnd(2*5*5, 4), rnd(2*3*3, 4), rnd(2, 3, 5, 5), rnd(2, 4, 5, 5)
	x59, b9, x2325, b3, g59, w97 := rnd(5, 9), rnd(9), rnd(2, 3, 2, 5), rnd(3), rnd(5, 9), rnd(9, 7)
	qkv, dout, rows := rnd(8, 12), rnd(8, 4), rnd(20, 3)
	xentTargets, one := []int32{3, -1, 8, -1, 0}, G.NewF32(1)
	cases := []struct {
		name string
		do   func(in []G.Value) (G.Value, error)
		in   []G.Value
	}{
		{"AddBias/matrix", via(bias, x59, b9), in(x59, b9)},
		{"AddBias/image", via(bias, x2325, b3), in(x2325, b3)},
		{"ReLU", via(relu, x59), in(x59)},
		{"ReLUGrad", via(gradOf(relu), x59, g59), in(x59, g59)},
		{"AddBiasGrad/matrix", via(biasBack, x59), in(x59)},
		{"AddBiasGrad/image", via(biasBack, x2325), in(x2325)},
		{"MatMul", via(matmul, x59, w97), in(x59, w97)},
		{"Embed", via(embed, x59), in(x59)},
		{"AddPositions", via(positions, x59), in(x59)},
		{"AddPositionsGrad", via(gradOf(positions), x59, g59), in(g59)},
		{"Dropout", via(dropout, x59), in(x59)},
		{"ToRows", via(toRows, x2325), in(x2325)},
		{"FromRows", via(fromRows, rows), in(rows)},
		{"CausalAttention", via(attn(true, nil), qkv), in(qkv)},
		{"Attention/keymask", via(attn(false, &real), qkv), in(qkv)},
		// the gradients' third input, the forward's output, is not read
		{"CausalAttentionGrad", via(gradOf(attn(true, nil)), qkv, dout), in(qkv, dout, dout)},
		{"AttentionGrad/keymask", via(gradOf(attn(false, &real)), qkv, dout), in(qkv, dout, dout)},
		// a token-budget batch of 2 sequences of 3 rows in 8: rows 6, 7 are padding
		{"Attention/short layout", via(attnIn(true, &real, Layout{2, 3}), qkv), in(qkv)},
		{"AttentionGrad/short layout", via(gradOf(attnIn(false, nil, Layout{1, 3})), qkv, dout), in(qkv, dout, dout)},
		{"CrossEntropyGrad/padded rows", xentGradDo(t, x59, &xentTargets), in(x59, one, one)},
		{"CrossEntropyGrad/smoothed", xentGradDo(t, x59, &xentTargets, 0.1), in(x59, one, one)},
		{"ConvRows/stride 1", via(convRows(1), pix, w4), in(pix, w4)},
		{"ConvRowsGradW/stride 1", via(convGrad(convRows(1), 1), pix, w4, dy1), in(pix, dy1)},
		{"ConvRowsGradX/stride 1", via(convGrad(convRows(1), 0), pix, w4, dy1), in(w4, dy1)},
		{"ConvRows/stride 2", via(convRows(2), pix, w4), in(pix, w4)},
		{"ConvRowsGradW/stride 2", via(convGrad(convRows(2), 1), pix, w4, dy2), in(pix, dy2)},
		{"ConvRowsGradX/stride 2", via(convGrad(convRows(2), 0), pix, w4, dy2), in(w4, dy2)},
		{"Conv2D", via(conv2D, img, w4), in(img, w4)},
		{"Conv2DGradX", via(convGrad(conv2D, 0), img, w4, dimg), in(w4, dimg)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fresh, err := c.do(c.in)
			if err != nil {
				t.Fatal(err)
			}
			want := append([]float32(nil), fresh.Data().([]float32)...)
			stale := fresh.(*tensor.Dense)
			for i, d := 0, stale.Data().([]float32); i < len(d); i++ {
				d[i] = float32(math.NaN())
			}
			got, err := c.do(c.in) // its previous output is stale
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

// xentGradDo is the Do of the gradient op of a cross-entropy over logits
// shaped as x (label smoothing eps[0] when given), whose inputs are the
// logits, the upstream gradient and the loss.
func xentGradDo(t *testing.T, x *tensor.Dense, targets *[]int32, eps ...float64) func(in []G.Value) (G.Value, error) {
	t.Helper()
	g := G.NewGraph()
	logits := G.NewMatrix(g, G.Float32, G.WithShape(x.Shape()...))
	opt := Xent{Sum: true}
	if len(eps) > 0 {
		opt.Smoothing = eps[0]
	}
	loss, err := CrossEntropy(logits, targets, opt)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := graphop.Of(loss)
	ns, err := d.Grad(G.Nodes{logits}, G.NewConstant(float32(1)))
	if err != nil {
		t.Fatal(err)
	}
	return func(in []G.Value) (G.Value, error) { return ns[0].Op().Do(in...) }
}
