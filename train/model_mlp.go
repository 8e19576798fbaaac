package train

import (
	"github.com/normtop/normtop/nn"
	G "gorgonia.org/gorgonia"
)

// mlp is the MNIST multilayer perceptron 784-256-256-10 with a norm site
// before each hidden activation (Xu et al. 2019, "before the activation in
// every linear layer"):
//
//	x → fc1 → norm "fc1" → ReLU → fc2 → norm "fc2" → ReLU → out → logits
type mlp struct {
	in, hidden, classes int
}

func newMLP(pixels, classes int) *mlp { return &mlp{in: pixels, hidden: 256, classes: classes} }

func (m *mlp) Name() string { return "mlp" }

func (m *mlp) Weights() []weightSpec {
	var w []weightSpec
	w = append(w, linearSpecs("fc1", m.in, m.hidden, kaiming(m.in))...)
	w = append(w, linearSpecs("fc2", m.hidden, m.hidden, kaiming(m.hidden))...)
	w = append(w, linearSpecs("out", m.hidden, m.classes, kaiming(m.hidden)/2)...)
	return w
}

func (m *mlp) Sites() []site {
	return []site{{Name: "fc1", D: m.hidden, Heads: 1, SampleRows: 1}, {Name: "fc2", D: m.hidden, Heads: 1, SampleRows: 1}}
}

func (m *mlp) Forward(b *builder) (*G.Node, error) {
	x := G.NewMatrix(b.g, b.dt, G.WithShape(b.batch, m.in), G.WithValue(b.images), G.WithName("images"))
	return chain(x,
		func(x *G.Node) (*G.Node, error) { return b.linear("fc1", x) },
		func(x *G.Node) (*G.Node, error) { return b.norm("fc1", x) },
		nn.ReLU,
		b.dropout,
		func(x *G.Node) (*G.Node, error) { return b.linear("fc2", x) },
		func(x *G.Node) (*G.Node, error) { return b.norm("fc2", x) },
		nn.ReLU,
		b.dropout,
		func(x *G.Node) (*G.Node, error) { return b.linear("out", x) },
	)
}

// feeds: each norm's output reaches the next linear layer through a ReLU
// only, so fc1's norm feeds fc2's matrix and fc2's the output layer's.
func (m *mlp) feeds(site string) []string {
	switch site {
	case "fc1":
		return []string{"fc2.w"}
	case "fc2":
		return []string{"out.w"}
	}
	return nil
}
