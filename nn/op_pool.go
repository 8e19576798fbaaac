package nn

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
	return MeanPoolLayout(x, &Layout{Rows: batch, T: seq}, batch, real)
}

// MeanPoolLayout is MeanPool over a batch whose split into sequences is
// read from *lay when the op runs (token-budget batches): the result has
// rows rows, the first lay.Rows of them the sequences' means, the rest
// zeros.
func MeanPoolLayout(x *G.Node, lay *Layout, rows int, real *[]bool) (*G.Node, error) {
	s := x.Shape()
	if s.Dims() != 2 || rows < 1 {
		return nil, fmt.Errorf("MeanPool: input shape %v, %d output rows", s, rows)
	}
	return G.ApplyOp(&poolOp{OpBase: NewOpBase("MeanPool"), n: s[0], b: rows, d: s[1], lay: lay, real: real}, x)
}

type poolOp struct {
	OpBase
	n, b, d int // input rows, output rows, features
	lay     *Layout
	real    *[]bool
	w       []float64 // weights' buffer, rewritten on every call
}

func (o *poolOp) Arity() int    { return 1 }
func (o *poolOp) Type() hm.Type { return hm.NewFnType(TensorType(2), TensorType(2)) }
func (o *poolOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.b, o.d}, nil
}

// layout returns this run's layout after checking that it fits the op.
func (o *poolOp) layout() (Layout, error) {
	l := *o.lay
	if l.Rows < 0 || l.Rows > o.b || l.T < 1 || l.Rows*l.T > o.n {
		return l, fmt.Errorf("%s: layout of %d sequences × %d rows does not fit %d rows into %d", o.name, l.Rows, l.T, o.n, o.b)
	}
	return l, nil
}

// weights returns 1/(real rows of its sequence) for every real row, 0 for
// padding: the pooling is out_b = Σ_t w_{b,t}·x_{b,t}. The slice is the
// op's own buffer (a step allocates nothing), valid until the next call;
// rows past the layout's sequences weigh 0.
func (o *poolOp) weights(l Layout) ([]float64, error) {
	if len(o.w) != o.n {
		o.w = make([]float64, o.n)
	}
	w := o.w
	clear(w)
	var mask []bool
	if o.real != nil {
		mask = *o.real
	}
	if mask != nil && len(mask) != o.n {
		return nil, fmt.Errorf("%s: mask of %d rows, want %d", o.name, len(mask), o.n)
	}
	for b := 0; b < l.Rows; b++ {
		n := 0
		for t := 0; t < l.T; t++ {
			if mask == nil || mask[b*l.T+t] {
				n++
			}
		}
		for t := 0; t < l.T; t++ {
			if n > 0 && (mask == nil || mask[b*l.T+t]) {
				w[b*l.T+t] = 1 / float64(n)
			}
		}
	}
	return w, nil
}

func (o *poolOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *poolOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	x, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	if s := x.Shape(); s.Dims() != 2 || s[0] != o.n || s[1] != o.d {
		return nil, fmt.Errorf("%s: input shape %v, want [%d %d]", o.name, s, o.n, o.d)
	}
	l, err := o.layout()
	if err != nil {
		return nil, err
	}
	w, err := o.weights(l)
	if err != nil {
		return nil, err
	}
	out := outBuf(pre, in, x.Dtype(), o.b, o.d)
	switch x.Dtype() {
	case tensor.Float32:
		pool(x.Float32s(), out.Float32s(), w, l.T, o.d)
	case tensor.Float64:
		pool(x.Float64s(), out.Float64s(), w, l.T, o.d)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	return out, nil
}

func pool[T Float](x, out []T, w []float64, seq, d int) {
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
	d, err := G.ApplyOp(&poolGradOp{OpBase: NewOpBase("MeanPoolGrad"), fwd: o}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d}, nil
}

// poolGradOp spreads the [B, d] upstream gradient back over the real rows:
// dx_{b,t} = w_{b,t}·g_b.
type poolGradOp struct {
	OpBase
	fwd *poolOp
}

func (o *poolGradOp) Arity() int    { return 1 }
func (o *poolGradOp) Type() hm.Type { return hm.NewFnType(TensorType(2), TensorType(2)) }
func (o *poolGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.fwd.n, o.fwd.d}, nil
}
func (o *poolGradOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *poolGradOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	g, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	f := o.fwd
	if s := g.Shape(); s.Dims() != 2 || s[0] != f.b || s[1] != f.d {
		return nil, fmt.Errorf("%s: gradient shape %v, want [%d %d]", o.name, s, f.b, f.d)
	}
	l, err := f.layout()
	if err != nil {
		return nil, err
	}
	w, err := f.weights(l)
	if err != nil {
		return nil, err
	}
	out := outBuf(pre, in, g.Dtype(), f.n, f.d)
	switch g.Dtype() {
	case tensor.Float32:
		unpool(g.Float32s(), out.Float32s(), w, l.T, f.d)
	case tensor.Float64:
		unpool(g.Float64s(), out.Float64s(), w, l.T, f.d)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, g.Dtype())
	}
	return out, nil
}

func unpool[T Float](g, dx []T, w []float64, seq, d int) {
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
