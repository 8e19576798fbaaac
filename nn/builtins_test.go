package nn

import (
	"testing"

	"github.com/normtop/normtop/nn/nntest"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestGradBuiltins finite-difference-checks every gorgonia built-in the
// models use, in the configurations they use it.
func TestGradBuiltins(t *testing.T) {
	cases := []struct {
		name   string
		shapes [][]int
		f      func(g *G.ExprGraph, in []*G.Node) (*G.Node, error)
	}{
		{"Mul/matmul", [][]int{{4, 3}, {3, 5}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return G.Mul(in[0], in[1]) }},
		{"Add", [][]int{{3, 4}, {3, 4}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return G.Add(in[0], in[1]) }},
		{"Reshape", [][]int{{2, 3, 2, 2}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return G.Reshape(in[0], tensor.Shape{2, 12}) }},
		{"Concat/axis1", [][]int{{3, 2}, {3, 4}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return G.Concat(1, in[0], in[1]) }},
		{"Conv2d/5x5", [][]int{{2, 2, 7, 7}, {3, 2, 5, 5}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			return G.Conv2d(in[0], in[1], tensor.Shape{5, 5}, []int{0, 0}, []int{1, 1}, []int{1, 1})
		}},
		{"MaxPool2D/2x2", [][]int{{2, 3, 4, 4}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			return G.MaxPool2D(in[0], tensor.Shape{2, 2}, []int{0, 0}, []int{2, 2})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { nntest.GradCheck(t, c.shapes, nntest.Normal, c.f) })
	}
}
