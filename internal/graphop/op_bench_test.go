package graphop

import (
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// BenchmarkOpCall is the cost of one call of an op's Do on tensors so
// small that the math is nothing: what the adapter around the math costs
// per op and step (a transformer step makes a few hundred such calls).
// The cases are the adapter's paths: one input, two inputs, an output
// that starts at zero (Accumulates), a Prepare, a scalar output.
func BenchmarkOpCall(b *testing.B) {
	x := tensor.New(tensor.WithShape(2, 4), tensor.WithBacking([]float32{1, -2, 3, -4, 5, -6, 7, -8}))
	y := tensor.New(tensor.WithShape(2, 4), tensor.WithBacking([]float32{8, 7, 6, 5, 4, 3, 2, 1}))
	copyK := func(out []float32, in [][]float32) error { copy(out, in[0]); return nil }
	addK := func(out []float32, in [][]float32) error {
		for i, v := range in[0] {
			out[i] = v + in[1][i]
		}
		return nil
	}
	sumK := func(out []float32, in [][]float32) error {
		for _, v := range in[0] {
			out[0] += v
		}
		return nil
	}
	f64 := func([]float64, [][]float64) error { return nil }
	shape := tensor.Shape{2, 4}
	cases := []struct {
		name string
		op   Op
		in   []G.Value
	}{
		{"one input", Op{Kind: "Copy", Out: shape, F32: copyK, F64: f64}, []G.Value{x}},
		{"two inputs", Op{Kind: "Add", Out: shape, F32: addK, F64: f64}, []G.Value{x, y}},
		{"accumulates", Op{Kind: "Copy", Out: shape, Accumulates: true, F32: copyK, F64: f64}, []G.Value{x}},
		{"prepare", Op{Kind: "Copy", Out: shape, Prepare: func() error { return nil }, F32: copyK, F64: f64}, []G.Value{x}},
		{"scalar output", Op{Kind: "Sum", Out: tensor.ScalarShape(), F32: sumK, F64: f64}, []G.Value{x}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			g := G.NewGraph()
			var nodes G.Nodes
			for range c.in {
				nodes = append(nodes, G.NewMatrix(g, G.Float32, G.WithShape(2, 4)))
			}
			n, err := c.op.Apply(nodes...)
			if err != nil {
				b.Fatal(err)
			}
			op := n.Op()
			if _, err := op.Do(c.in...); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := op.Do(c.in...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
