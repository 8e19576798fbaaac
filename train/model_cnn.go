package train

import (
	"math"

	"github.com/normtop/normtop/nn"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// cnn is the AdaNorm paper's MNIST network (Xu et al. 2019, appendix):
// conv 1→20 (5×5) and conv 20→50 (5×5), each followed by ReLU and 2×2 max
// pooling, flattened into a linear layer with a norm site before its
// activation, then the 10-class output. The paper does not give the hidden
// width; 500 is the classic LeNet's.
//
//	x → conv1 → ReLU → pool → conv2 → ReLU → pool → flatten
//	  → fc1 → norm "fc1" → ReLU → out → logits
type cnn struct {
	h, w, classes int
	hidden        int
}

func newCNN(h, w, classes int) *cnn { return &cnn{h: h, w: w, classes: classes, hidden: 500} }

func (m *cnn) Name() string { return "cnn" }

// flat is the width of the flattened second pooling output.
func (m *cnn) flat() int {
	h, w := ((m.h-4)/2-4)/2, ((m.w-4)/2-4)/2
	return 50 * h * w
}

func (m *cnn) Weights() []weightSpec {
	w := []weightSpec{
		{"conv1.w", []int{20, 1, 5, 5}, kaiming(25)}, {"conv1.b", []int{20}, 0},
		{"conv2.w", []int{50, 20, 5, 5}, kaiming(500)}, {"conv2.b", []int{50}, 0},
	}
	w = append(w, linearSpecs("fc1", m.flat(), m.hidden, kaiming(m.flat()))...)
	w = append(w, linearSpecs("out", m.hidden, m.classes, 1/math.Sqrt(float64(m.hidden)))...)
	return w
}

func (m *cnn) Sites() []site { return []site{{Name: "fc1", D: m.hidden, Heads: 1, SampleRows: 1}} }

// conv is a 5×5 valid convolution with a per-channel bias, ReLU and 2×2
// max pooling.
func (m *cnn) conv(b *builder, name string) func(*G.Node) (*G.Node, error) {
	return func(x *G.Node) (*G.Node, error) {
		w, bias, err := b.layer(name)
		if err != nil {
			return nil, err
		}
		return chain(x,
			func(x *G.Node) (*G.Node, error) {
				// x without an op is the model's input data (the images)
				return nn.Conv2D(x, w, x.Op() == nil)
			},
			func(x *G.Node) (*G.Node, error) { return nn.AddBias(x, bias) },
			nn.ReLU,
			func(x *G.Node) (*G.Node, error) {
				return G.MaxPool2D(x, tensor.Shape{2, 2}, []int{0, 0}, []int{2, 2})
			},
		)
	}
}

func (m *cnn) Forward(b *builder) (*G.Node, error) {
	// a 4-D view of the same backing, so rewriting b.images feeds this graph
	img := tensor.New(tensor.WithShape(b.batch, 1, m.h, m.w), tensor.WithBacking(b.images.Data()))
	x := G.NewTensor(b.g, b.dt, 4, G.WithShape(b.batch, 1, m.h, m.w), G.WithValue(img), G.WithName("images"))
	return chain(x,
		m.conv(b, "conv1"),
		m.conv(b, "conv2"),
		func(x *G.Node) (*G.Node, error) { return G.Reshape(x, tensor.Shape{b.batch, m.flat()}) },
		func(x *G.Node) (*G.Node, error) { return b.linear("fc1", x) },
		func(x *G.Node) (*G.Node, error) { return b.norm("fc1", x) },
		nn.ReLU,
		b.dropout,
		func(x *G.Node) (*G.Node, error) { return b.linear("out", x) },
	)
}
