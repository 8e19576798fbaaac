package nn

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ReLU returns x·[x ≥ 0], the same values as gorgonia's Rectify (NaN stays
// NaN, a negative input gives −0) in one op. Rectify builds a comparison
// node and a product node, each allocating its output and its gradient on
// every step: 14% of the transformer's step went there.
func ReLU(x *G.Node) (*G.Node, error) {
	return G.ApplyOp(&reluOp{OpBase: NewOpBase("ReLU"), dims: x.Shape().Dims()}, x)
}

type reluOp struct {
	OpBase
	dims int
}

func (o *reluOp) Arity() int    { return 1 }
func (o *reluOp) Type() hm.Type { return hm.NewFnType(TensorType(o.dims), TensorType(o.dims)) }
func (o *reluOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (o *reluOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *reluOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	x, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	out := OutBufFull(pre, in, x.Dtype(), x.Shape()...)
	switch x.Dtype() {
	case tensor.Float32:
		reluMask(x.Float32s(), x.Float32s(), out.Float32s())
	case tensor.Float64:
		reluMask(x.Float64s(), x.Float64s(), out.Float64s())
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	return out, nil
}

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

func (o *reluOp) DiffWRT(int) []bool { return []bool{true} }
func (o *reluOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(&reluGradOp{OpBase: NewOpBase("ReLUGrad"), dims: o.dims}, inputs[0], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

// reluGradOp is g·[x ≥ 0] from the ReLU's input x and upstream gradient g.
type reluGradOp struct {
	OpBase
	dims int
}

func (o *reluGradOp) Arity() int { return 2 }
func (o *reluGradOp) Type() hm.Type {
	return hm.NewFnType(TensorType(o.dims), TensorType(o.dims), TensorType(o.dims))
}
func (o *reluGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (o *reluGradOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *reluGradOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 2); err != nil {
		return nil, err
	}
	x, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	g, err := AsDense(o.name, in[1])
	if err != nil {
		return nil, err
	}
	if !x.Shape().Eq(g.Shape()) || x.Dtype() != g.Dtype() {
		return nil, fmt.Errorf("%s: x %v %v and gradient %v %v differ", o.name, x.Shape(), x.Dtype(), g.Shape(), g.Dtype())
	}
	out := OutBufFull(pre, in, x.Dtype(), x.Shape()...)
	switch x.Dtype() {
	case tensor.Float32:
		reluMask(x.Float32s(), g.Float32s(), out.Float32s())
	case tensor.Float64:
		reluMask(x.Float64s(), g.Float64s(), out.Float64s())
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	return out, nil
}
