package nn

import (
	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
)

// ReLU returns x·[x ≥ 0], the same values as gorgonia's Rectify (NaN stays
// NaN, a negative input gives −0) in one op. Rectify builds a comparison
// node and a product node, each allocating its output and its gradient on
// every step: 14% of the transformer's step went there.
func ReLU(x *G.Node) (*G.Node, error) {
	return graphop.Op{Kind: "ReLU", Out: x.Shape(), F32: relu[float32], F64: relu[float64], Grad: reluGrad}.Apply(x)
}

func relu[T Float](out []T, in [][]T) error { reluMask(in[0], in[0], out); return nil }

// reluGrad is g·[x ≥ 0] from the ReLU's input x and upstream gradient g.
func reluGrad(in G.Nodes, g *G.Node) (G.Nodes, error) {
	return graphop.One(graphop.Op{Kind: "ReLUGrad", Out: g.Shape(), F32: reluBack[float32], F64: reluBack[float64]}.Apply(in[0], g))
}

func reluBack[T Float](out []T, in [][]T) error { reluMask(in[0], in[1], out); return nil }

// reluMask writes v·[x ≥ 0] into out: the forward pass with v = x, the
// backward pass with v = the upstream gradient. A product with the mask,
// not a select, so that NaN and signed zeros come out as Rectify's do.
func reluMask[T Float](x, v, out []T) {
	v, out = v[:len(x)], out[:len(x)]
	for i := reluMaskFast(x, v, out); i < len(x); i++ {
		xi := x[i]
		// an integer flag, which the compiler sets without a branch (SETcc):
		// a branch on the sign of trained activations mispredicts half the
		// time and made the op slower than Rectify's two passes
		var m int32
		if xi >= 0 {
			m = 1
		}
		out[i] = v[i] * T(m)
	}
}
