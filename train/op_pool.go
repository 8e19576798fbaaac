package train

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// MeanPool averages each sequence's real rows: x is [B·T, d] (row b·T+t is
// position t of sequence b) and the result is [B, d]. *real holds one flag
// per row and is read when the op runs, so the trainer rewrites it per
// batch; nil means every row is real. A sequence with no real row pools to
// zeros. This is the classifier's "pooling over real tokens": padding never
// reaches the logits, so it cannot leak into the loss or the gradients.
func MeanPool(x *G.Node, batch, seq int, real *[]bool) (*G.Node, error) {
	s := x.Shape()
	if s.Dims() != 2 || s[0] != batch*seq {
		return nil, fmt.Errorf("MeanPool: input shape %v does not fit batch %d × seq %d", s, batch, seq)
	}
	return G.ApplyOp(&poolOp{opBase: newOpBase("MeanPool"), b: batch, t: seq, d: s[1], real: real}, x)
}

type poolOp struct {
	opBase
	b, t, d int
	real    *[]bool
	w       []float64 // weights' buffer, rewritten on every call
}

func (o *poolOp) Arity() int    { return 1 }
func (o *poolOp) Type() hm.Type { return hm.NewFnType(tt(2), tt(2)) }
func (o *poolOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.b, o.d}, nil
}

// weights returns 1/(real rows of its sequence) for every real row, 0 for
// padding: the pooling is out_b = Σ_t w_{b,t}·x_{b,t}. The slice is the
// op's own buffer (a step allocates nothing), valid until the next call.
func (o *poolOp) weights() ([]float64, error) {
	if len(o.w) != o.b*o.t {
		o.w = make([]float64, o.b*o.t)
	}
	w := o.w
	var mask []bool
	if o.real != nil {
		mask = *o.real
	}
	if mask != nil && len(mask) != o.b*o.t {
		return nil, fmt.Errorf("%s: mask of %d rows, want %d", o.name, len(mask), o.b*o.t)
	}
	for b := 0; b < o.b; b++ {
		n := 0
		for t := 0; t < o.t; t++ {
			if mask == nil || mask[b*o.t+t] {
				n++
			}
		}
		for t := 0; t < o.t; t++ {
			w[b*o.t+t] = 0
			if n > 0 && (mask == nil || mask[b*o.t+t]) {
				w[b*o.t+t] = 1 / float64(n)
			}
		}
	}
	return w, nil
}

func (o *poolOp) Do(in ...G.Value) (G.Value, error) { return o.reuse(o.do, in) }

func (o *poolOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.checkArity(len(in), 1); err != nil {
		return nil, err
	}
	x, err := dense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	if s := x.Shape(); s.Dims() != 2 || s[0] != o.b*o.t || s[1] != o.d {
		return nil, fmt.Errorf("%s: input shape %v, want [%d %d]", o.name, s, o.b*o.t, o.d)
	}
	w, err := o.weights()
	if err != nil {
		return nil, err
	}
	out := outBuf(pre, in, x.Dtype(), o.b, o.d)
	switch x.Dtype() {
	case tensor.Float32:
		pool(x.Float32s(), out.Float32s(), w, o.t, o.d)
	case tensor.Float64:
		pool(x.Float64s(), out.Float64s(), w, o.t, o.d)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	return out, nil
}

func pool[T float](x, out []T, w []float64, seq, d int) {
	for r, wr := range w {
		if wr == 0 {
			continue
		}
		o := out[(r/seq)*d : (r/seq+1)*d]
		for k, v := range x[r*d : (r+1)*d] {
			o[k] += T(wr * float64(v))
		}
	}
}

func (o *poolOp) DiffWRT(int) []bool { return []bool{true} }
func (o *poolOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	d, err := G.ApplyOp(&poolGradOp{opBase: newOpBase("MeanPoolGrad"), fwd: o}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d}, nil
}

// poolGradOp spreads the [B, d] upstream gradient back over the real rows:
// dx_{b,t} = w_{b,t}·g_b.
type poolGradOp struct {
	opBase
	fwd *poolOp
}

func (o *poolGradOp) Arity() int    { return 1 }
func (o *poolGradOp) Type() hm.Type { return hm.NewFnType(tt(2), tt(2)) }
func (o *poolGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.fwd.b * o.fwd.t, o.fwd.d}, nil
}
func (o *poolGradOp) Do(in ...G.Value) (G.Value, error) { return o.reuse(o.do, in) }

func (o *poolGradOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.checkArity(len(in), 1); err != nil {
		return nil, err
	}
	g, err := dense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	f := o.fwd
	if s := g.Shape(); s.Dims() != 2 || s[0] != f.b || s[1] != f.d {
		return nil, fmt.Errorf("%s: gradient shape %v, want [%d %d]", o.name, s, f.b, f.d)
	}
	w, err := f.weights()
	if err != nil {
		return nil, err
	}
	out := outBuf(pre, in, g.Dtype(), f.b*f.t, f.d)
	switch g.Dtype() {
	case tensor.Float32:
		unpool(g.Float32s(), out.Float32s(), w, f.t, f.d)
	case tensor.Float64:
		unpool(g.Float64s(), out.Float64s(), w, f.t, f.d)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, g.Dtype())
	}
	return out, nil
}

func unpool[T float](g, dx []T, w []float64, seq, d int) {
	for r, wr := range w {
		if wr == 0 {
			continue
		}
		gb := g[(r/seq)*d : (r/seq+1)*d]
		for k, v := range gb {
			dx[r*d+k] = T(wr * float64(v))
		}
	}
}
