package nn

import (
	"fmt"

	"github.com/normtop/normtop/internal/graphop"
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
	o := &meanPool{n: s[0], b: rows, d: s[1], lay: lay, real: real}
	grad := func(_ G.Nodes, g *G.Node) (G.Nodes, error) {
		return graphop.One(graphop.Op{Kind: "MeanPoolGrad", Out: s, Accumulates: true, Prepare: o.prepare,
			F32: unpoolKernel[float32](o), F64: unpoolKernel[float64](o)}.Apply(g))
	}
	return graphop.Op{Kind: "MeanPool", Out: tensor.Shape{rows, s[1]}, Accumulates: true, Prepare: o.prepare, Grad: grad,
		F32: poolKernel[float32](o), F64: poolKernel[float64](o)}.Apply(x)
}

// meanPool is one MeanPool node's extent and this run's weights, shared by
// its forward and backward.
type meanPool struct {
	n, b, d int // input rows, output rows, features
	lay     *Layout
	real    *[]bool
	w       []float64 // weights' buffer, rewritten on every call
	l       Layout    // this run's layout, set by prepare
}

// prepare takes this run's layout and weights.
func (o *meanPool) prepare() (err error) {
	if o.l, err = o.layout(); err != nil {
		return err
	}
	_, err = o.weights(o.l)
	return err
}

func poolKernel[T Float](o *meanPool) graphop.Kernel[T] {
	return func(out []T, in [][]T) error { pool(in[0], out, o.w, o.l.T, o.d); return nil }
}

// unpoolKernel spreads the [B, d] upstream gradient back over the real
// rows: dx_{b,t} = w_{b,t}·g_b.
func unpoolKernel[T Float](o *meanPool) graphop.Kernel[T] {
	return func(dx []T, in [][]T) error { unpool(in[0], dx, o.w, o.l.T, o.d); return nil }
}

// layout returns this run's layout after checking that it fits the op.
func (o *meanPool) layout() (Layout, error) {
	l := *o.lay
	if l.Rows < 0 || l.Rows > o.b || l.T < 1 || l.Rows*l.T > o.n {
		return l, fmt.Errorf("layout of %d sequences × %d rows does not fit %d rows into %d", l.Rows, l.T, o.n, o.b)
	}
	return l, nil
}

// weights returns 1/(real rows of its sequence) for every real row, 0 for
// padding: the pooling is out_b = Σ_t w_{b,t}·x_{b,t}. The slice is the
// op's own buffer (a step allocates nothing), valid until the next call;
// rows past the layout's sequences weigh 0.
func (o *meanPool) weights(l Layout) ([]float64, error) {
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
		return nil, fmt.Errorf("mask of %d rows, want %d", len(mask), o.n)
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
