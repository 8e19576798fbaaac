package nn

import (
	"fmt"

	"github.com/chewxy/hm"
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
	return G.ApplyOp(&embedOp{OpBase: NewOpBase("Embed"), idx: idx, v: s[0], d: s[1]}, w)
}

type embedOp struct {
	OpBase
	idx  *[]int32
	v, d int
}

func (o *embedOp) Arity() int    { return 1 }
func (o *embedOp) Type() hm.Type { return hm.NewFnType(TensorType(2), TensorType(2)) }
func (o *embedOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{len(*o.idx), o.d}, nil
}
func (o *embedOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *embedOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	w, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	idx := *o.idx
	for i, t := range idx {
		if t < 0 || int(t) >= o.v {
			return nil, fmt.Errorf("%s: index %d at position %d outside [0,%d)", o.name, t, i, o.v)
		}
	}
	out := outBuf(pre, in, w.Dtype(), len(idx), o.d)
	switch w.Dtype() {
	case tensor.Float32:
		gather(w.Float32s(), out.Float32s(), idx, o.d)
	case tensor.Float64:
		gather(w.Float64s(), out.Float64s(), idx, o.d)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, w.Dtype())
	}
	return out, nil
}

func gather[T Float](w, out []T, idx []int32, d int) {
	for i, t := range idx {
		copy(out[i*d:(i+1)*d], w[int(t)*d:(int(t)+1)*d])
	}
}

func (o *embedOp) DiffWRT(int) []bool { return []bool{true} }
func (o *embedOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dw, err := G.ApplyOp(&embedGradOp{OpBase: NewOpBase("EmbedGrad"), fwd: o}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dw}, nil
}

type embedGradOp struct {
	OpBase
	fwd *embedOp
}

func (o *embedGradOp) Arity() int    { return 1 }
func (o *embedGradOp) Type() hm.Type { return hm.NewFnType(TensorType(2), TensorType(2)) }
func (o *embedGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.fwd.v, o.fwd.d}, nil
}
func (o *embedGradOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *embedGradOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	g, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	out := outBuf(pre, in, g.Dtype(), o.fwd.v, o.fwd.d)
	switch g.Dtype() {
	case tensor.Float32:
		scatterAdd(g.Float32s(), out.Float32s(), *o.fwd.idx, o.fwd.d)
	case tensor.Float64:
		scatterAdd(g.Float64s(), out.Float64s(), *o.fwd.idx, o.fwd.d)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, g.Dtype())
	}
	return out, nil
}

func scatterAdd[T Float](g, dw []T, idx []int32, d int) {
	for i, t := range idx {
		row := dw[int(t)*d : (int(t)+1)*d]
		for k, v := range g[i*d : (i+1)*d] {
			row[k] += v
		}
	}
}
