package nn

import (
	"fmt"

	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Embed looks up rows of the [V, d] table w: row i of the [len(*idx), d]
// result is w[(*idx)[i]]. The caller owns idx and rewrites it before every
// run (the batch's token ids); its length is fixed when the node is built.
// gorgonia's ByIndices has a wrong backward for 1-D input and axis 1; the
// backward here is a plain scatter-add.
func Embed(w *G.Node, idx *[]int32) (*G.Node, error) {
	s := w.Shape()
	if s.Dims() != 2 {
		return nil, fmt.Errorf("Embed: table shape %v, want [V, d]", s)
	}
	v, d := s[0], s[1]
	check := func() error {
		for i, t := range *idx {
			if t < 0 || int(t) >= v {
				return fmt.Errorf("index %d at position %d outside [0,%d)", t, i, v)
			}
		}
		return nil
	}
	grad := func(_ G.Nodes, g *G.Node) (G.Nodes, error) {
		return graphop.One(graphop.Op{Kind: "EmbedGrad", Out: s, Accumulates: true, F32: scatterAdd[float32](idx, d), F64: scatterAdd[float64](idx, d)}.Apply(g))
	}
	return graphop.Op{Kind: "Embed", Out: tensor.Shape{len(*idx), d}, Prepare: check, F32: gather[float32](idx, d), F64: gather[float64](idx, d), Grad: grad}.Apply(w)
}

// gather copies row (*idx)[i] of the table into row i of the output.
func gather[T Float](idx *[]int32, d int) graphop.Kernel[T] {
	return func(out []T, in [][]T) error {
		w := in[0]
		for i, t := range *idx {
			copy(out[i*d:(i+1)*d], w[int(t)*d:(int(t)+1)*d])
		}
		return nil
	}
}

// scatterAdd adds row i of the upstream gradient into row (*idx)[i] of the
// table's gradient, with addRow's kernel (row + g, the sum a Go loop of
// row[k] += g[k] makes; its scalar loop was 2% of the classifier's step).
func scatterAdd[T Float](idx *[]int32, d int) graphop.Kernel[T] {
	return func(dw []T, in [][]T) error {
		g := in[0]
		for i, t := range *idx {
			row := dw[int(t)*d : (int(t)+1)*d]
			addRow(row, g[i*d:(i+1)*d], row)
		}
		return nil
	}
}
