package nn

import (
	"fmt"
	"math/rand"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Dropout zeroes each entry of x with probability p and scales the kept ones
// by 1/(1−p) (inverted dropout), so the eval graph, which leaves Dropout
// out, needs no rescaling. Masks come from rng, which the caller seeds: the
// runner gives every variant an RNG with the same seed, and since every
// variant's graph draws the same number of masks in the same order, every
// variant sees the same masks. gorgonia's own Dropout scales the gradient
// by 1/p and seeds from the clock; this one has neither problem.
//
// The returned *DropoutOp lets the caller switch it off (identity) with
// SetTraining(false).
func Dropout(x *G.Node, p float64, rng *rand.Rand) (*G.Node, *DropoutOp, error) {
	if p < 0 || p >= 1 {
		return nil, nil, fmt.Errorf("dropout: p=%g, want 0 ≤ p < 1", p)
	}
	op := &DropoutOp{OpBase: NewOpBase("Dropout"), p: p, rng: rng, dims: x.Shape().Dims(), training: true}
	y, err := G.ApplyOp(op, x)
	return y, op, err
}

// DropoutOp is the forward op of Dropout; it keeps the last mask for its
// backward op.
type DropoutOp struct {
	OpBase
	p        float64
	rng      *rand.Rand
	dims     int
	training bool
	freeze   bool      // reuse the last mask (finite-difference tests only)
	mask     []float64 // 0 or 1/(1−p) per entry, the mask of the last forward
}

// SetTraining switches between dropping (true) and the identity (false).
func (o *DropoutOp) SetTraining(on bool) { o.training = on }

func (o *DropoutOp) Arity() int    { return 1 }
func (o *DropoutOp) Type() hm.Type { return hm.NewFnType(TensorType(o.dims), TensorType(o.dims)) }
func (o *DropoutOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}

func (o *DropoutOp) drawMask(n int) {
	if o.freeze && len(o.mask) == n {
		return
	}
	if cap(o.mask) < n {
		o.mask = make([]float64, n)
	}
	o.mask = o.mask[:n]
	keep := 1 / (1 - o.p)
	for i := range o.mask {
		if !o.training || o.p == 0 {
			o.mask[i] = 1
		} else if o.rng.Float64() < o.p {
			o.mask[i] = 0
		} else {
			o.mask[i] = keep
		}
	}
}

func (o *DropoutOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *DropoutOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	x, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	o.drawMask(x.Size())
	return applyMask(pre, in, o.name, x, o.mask)
}

func applyMask(pre G.Value, in []G.Value, name string, x *tensor.Dense, mask []float64) (G.Value, error) {
	if x.Size() != len(mask) {
		return nil, fmt.Errorf("%s: %d entries, mask of %d", name, x.Size(), len(mask))
	}
	out := outBuf(pre, in, x.Dtype(), x.Shape()...)
	switch x.Dtype() {
	case tensor.Float32:
		mulMask(x.Float32s(), out.Float32s(), mask)
	case tensor.Float64:
		mulMask(x.Float64s(), out.Float64s(), mask)
	default:
		return nil, fmt.Errorf("%s: dtype %v", name, x.Dtype())
	}
	return out, nil
}

func mulMask[T Float](x, out []T, mask []float64) {
	for i, v := range x {
		out[i] = v * T(mask[i])
	}
}

func (o *DropoutOp) DiffWRT(int) []bool { return []bool{true} }
func (o *DropoutOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	d, err := G.ApplyOp(&dropoutGradOp{OpBase: NewOpBase("DropoutGrad"), fwd: o}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d}, nil
}

// dropoutGradOp multiplies the upstream gradient by the forward's mask.
type dropoutGradOp struct {
	OpBase
	fwd *DropoutOp
}

func (o *dropoutGradOp) Arity() int { return 1 }
func (o *dropoutGradOp) Type() hm.Type {
	return hm.NewFnType(TensorType(o.fwd.dims), TensorType(o.fwd.dims))
}
func (o *dropoutGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (o *dropoutGradOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *dropoutGradOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	g, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	return applyMask(pre, in, o.name, g, o.fwd.mask)
}
