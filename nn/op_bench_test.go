package nn

import (
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// BenchmarkOpCall is the cost of one call of an op's Do on tensors so
// small that the math is nothing: what the graph plumbing around the math
// costs per op and step (a transformer step makes a few hundred such
// calls). Only the public constructors are used, so the same benchmark
// measures any build of the ops.
func BenchmarkOpCall(b *testing.B) {
	x := tensor.New(tensor.WithShape(2, 4), tensor.WithBacking([]float32{1, -2, 3, -4, 5, -6, 7, -8}))
	w := tensor.New(tensor.WithShape(4, 4), tensor.WithBacking(make([]float32, 16)))
	bias := tensor.New(tensor.WithShape(4), tensor.WithBacking([]float32{1, 2, 3, 4}))
	targets := []int32{1, 3}
	cases := []struct {
		name  string
		build func(g *G.ExprGraph, xn, wn, bn *G.Node) (*G.Node, error)
		in    []G.Value
	}{
		{"ReLU", func(g *G.ExprGraph, xn, _, _ *G.Node) (*G.Node, error) { return ReLU(xn) }, []G.Value{x}},
		{"AddBias", func(g *G.ExprGraph, xn, _, bn *G.Node) (*G.Node, error) { return AddBias(xn, bn) }, []G.Value{x, bias}},
		{"MatMul", func(g *G.ExprGraph, xn, wn, _ *G.Node) (*G.Node, error) { return MatMul(xn, wn, false) }, []G.Value{x, w}},
		{"CrossEntropy", func(g *G.ExprGraph, xn, _, _ *G.Node) (*G.Node, error) { return CrossEntropy(xn, &targets, Xent{}) }, []G.Value{x}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			g := G.NewGraph()
			xn := G.NewMatrix(g, G.Float32, G.WithShape(2, 4))
			wn := G.NewMatrix(g, G.Float32, G.WithShape(4, 4))
			bn := G.NewVector(g, G.Float32, G.WithShape(4))
			n, err := c.build(g, xn, wn, bn)
			if err != nil {
				b.Fatal(err)
			}
			op := n.Op()
			if _, err := op.Do(c.in...); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := op.Do(c.in...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
