package train

import (
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
	return []site{{Name: "fc1", D: m.hidden, Heads: 1}, {Name: "fc2", D: m.hidden, Heads: 1}}
}

func (m *mlp) Forward(b *builder) (*G.Node, error) {
	x := G.NewMatrix(b.g, b.dt, G.WithShape(b.batch, m.in), G.WithValue(b.images), G.WithName("images"))
	return chain(x,
		func(x *G.Node) (*G.Node, error) { return b.linear("fc1", x) },
		func(x *G.Node) (*G.Node, error) { return b.norm("fc1", x) },
		ReLU,
		b.dropout,
		func(x *G.Node) (*G.Node, error) { return b.linear("fc2", x) },
		func(x *G.Node) (*G.Node, error) { return b.norm("fc2", x) },
		ReLU,
		b.dropout,
		func(x *G.Node) (*G.Node, error) { return b.linear("out", x) },
	)
}
