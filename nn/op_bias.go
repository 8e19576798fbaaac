package nn

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// AddBias returns x + b with b (a vector) broadcast along axis 1 of x: per
// feature for a [N, d] matrix, per channel for a [B, C, H, W] image. It
// replaces gorgonia's BroadcastAdd, whose gradient path builds several extra
// nodes per use.
func AddBias(x, b *G.Node) (*G.Node, error) {
	xs := x.Shape()
	if xs.Dims() < 2 || b.Shape().TotalSize() != xs[1] {
		return nil, fmt.Errorf("AddBias: x %v and b %v do not match on axis 1", xs, b.Shape())
	}
	return G.ApplyOp(&biasOp{OpBase: NewOpBase("AddBias"), dims: xs.Dims()}, x, b)
}

type biasOp struct {
	OpBase
	dims int
}

func (o *biasOp) Arity() int { return 2 }
func (o *biasOp) Type() hm.Type {
	return hm.NewFnType(TensorType(o.dims), TensorType(1), TensorType(o.dims))
}
func (o *biasOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (o *biasOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *biasOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 2); err != nil {
		return nil, err
	}
	x, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	b, err := AsDense(o.name, in[1])
	if err != nil {
		return nil, err
	}
	out := OutBufFull(pre, in, x.Dtype(), x.Shape()...)
	switch x.Dtype() {
	case tensor.Float32:
		biasFwd(x.Float32s(), b.Float32s(), out.Float32s(), x.Shape())
	case tensor.Float64:
		biasFwd(x.Float64s(), b.Float64s(), out.Float64s(), x.Shape())
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	return out, nil
}

// inner is the number of contiguous elements that share one bias entry.
func inner(s tensor.Shape) int {
	n := 1
	for _, d := range s[2:] {
		n *= d
	}
	return n
}

func biasFwd[T Float](x, b, out []T, s tensor.Shape) {
	in, c := inner(s), s[1]
	if in == 1 { // [N, d]: one bias per column
		for r := 0; r < len(x); r += c {
			addRow(x[r:r+c], b[:c], out[r:r+c])
		}
		return
	}
	for blk := 0; blk*in < len(x); blk++ { // [B, C, ...]: one bias per channel block
		bk := b[blk%c]
		xr, or := x[blk*in:(blk+1)*in], out[blk*in:(blk+1)*in]
		for i, v := range xr {
			or[i] = v + bk
		}
	}
}

func (o *biasOp) DiffWRT(int) []bool { return []bool{true, true} }
func (o *biasOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	db, err := G.ApplyOp(&biasGradOp{OpBase: NewOpBase("AddBiasGrad"), dims: o.dims, c: inputs[1].Shape().TotalSize()}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{grad, db}, nil
}

// biasGradOp sums the upstream gradient over every axis but 1.
type biasGradOp struct {
	OpBase
	dims, c int
	acc     []float64 // the sums, reused by every run
}

func (o *biasGradOp) Arity() int                                     { return 1 }
func (o *biasGradOp) Type() hm.Type                                  { return hm.NewFnType(TensorType(o.dims), TensorType(1)) }
func (o *biasGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return tensor.Shape{o.c}, nil }
func (o *biasGradOp) Do(in ...G.Value) (G.Value, error)              { return o.Reuse(o.do, in) }

func (o *biasGradOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	g, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	out := OutBufFull(pre, in, g.Dtype(), o.c)
	switch g.Dtype() {
	case tensor.Float32:
		biasBwd(g.Float32s(), out.Float32s(), g.Shape(), o.sums())
	case tensor.Float64:
		biasBwd(g.Float64s(), out.Float64s(), g.Shape(), o.sums())
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, g.Dtype())
	}
	return out, nil
}

// sums returns the op's float64 accumulator, zeroed.
func (o *biasGradOp) sums() []float64 {
	if len(o.acc) != o.c {
		o.acc = make([]float64, o.c)
	}
	clear(o.acc)
	return o.acc
}

// biasBwd sums g over every axis but 1 into db, in float64 in acc (zero,
// as long as db).
func biasBwd[T Float](g, db []T, s tensor.Shape, acc []float64) {
	in, c := inner(s), s[1]
	if in == 1 { // [N, d]: column sums, one row at a time
		for r := 0; r < len(g); r += c {
			colAdd(g[r:r+c], acc)
		}
	}
	for blk := 0; in > 1 && blk*in < len(g); blk++ {
		var s float64
		for _, v := range g[blk*in : (blk+1)*in] {
			s += float64(v)
		}
		acc[blk%c] += s
	}
	for i := range db {
		db[i] = T(acc[i])
	}
}
