package nn

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Xent is how CrossEntropy reduces over rows and what it predicts.
type Xent struct {
	// Sum makes the loss the sum over real rows, as fairseq's criterion
	// returns it (the trainer then divides the parameter gradients by the
	// row count after the backward pass, fairseq's multiply_grads); false:
	// the mean over real rows. The gradients that flow back through the
	// graph, and so every probe taken on them, differ by that count.
	Sum bool
	// Smoothing is ε of label smoothing (fairseq's
	// label_smoothed_cross_entropy): each row's target distribution is
	// (1−ε)·onehot + ε/C. 0: plain cross-entropy.
	Smoothing float64
}

// CrossEntropy is the fused, numerically stable softmax cross-entropy of the
// [N, C] logits against the class ids in *targets, reduced over the real
// rows as opt says: a negative target marks a padded row, which adds
// nothing and is not counted. The caller rewrites *targets before every
// run. Whatever opt says, LastXent reads the plain negative log-likelihood
// of the last run as a mean over real rows: the loss every output shows.
func CrossEntropy(logits *G.Node, targets *[]int32, opt Xent) (*G.Node, error) {
	s := logits.Shape()
	if s.Dims() != 2 {
		return nil, fmt.Errorf("CrossEntropy: logits shape %v, want [N, C]", s)
	}
	if !(opt.Smoothing >= 0 && opt.Smoothing < 1) {
		return nil, fmt.Errorf("CrossEntropy: label smoothing %g, want 0 ≤ ε < 1", opt.Smoothing)
	}
	return G.ApplyOp(&xentOp{OpBase: NewOpBase("CrossEntropy"), targets: targets, c: s[1], opt: opt}, logits)
}

// XentResult is what the last run of a CrossEntropy node measured.
type XentResult struct {
	NLL  float64 // −log p(target), mean over the real rows (no smoothing)
	Real int     // real rows (non-negative targets)
}

// LastXent is the result of loss's last forward; ok is false when loss is
// not a CrossEntropy node.
func LastXent(loss *G.Node) (r XentResult, ok bool) {
	o, ok := loss.Op().(*xentOp)
	if !ok {
		return XentResult{}, false
	}
	return o.last, true
}

type xentOp struct {
	OpBase
	targets *[]int32
	c       int
	opt     Xent
	last    XentResult // of the last Do
}

func (o *xentOp) Arity() int                                     { return 1 }
func (o *xentOp) Type() hm.Type                                  { return hm.NewFnType(TensorType(2), scalarT) }
func (o *xentOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return tensor.ScalarShape(), nil }

func (o *xentOp) check(in []G.Value) (*tensor.Dense, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	x, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	t := *o.targets
	if x.Shape()[0] != len(t) {
		return nil, fmt.Errorf("%s: %d rows of logits, %d targets", o.name, x.Shape()[0], len(t))
	}
	for i, c := range t {
		if int(c) >= o.c {
			return nil, fmt.Errorf("%s: target %d at row %d outside [0,%d)", o.name, c, i, o.c)
		}
	}
	return x, nil
}

func (o *xentOp) Do(in ...G.Value) (G.Value, error) {
	x, err := o.check(in)
	if err != nil {
		return nil, err
	}
	var r xentRows
	switch x.Dtype() {
	case tensor.Float32:
		r = xentFwd(x.Float32s(), *o.targets, o.c, o.opt.Smoothing)
	case tensor.Float64:
		r = xentFwd(x.Float64s(), *o.targets, o.c, o.opt.Smoothing)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	o.last = XentResult{Real: r.n}
	loss := r.loss
	if r.n > 0 {
		o.last.NLL = r.nll / float64(r.n)
		if !o.opt.Sum {
			loss /= float64(r.n)
		}
	}
	return newScalar(x.Dtype(), loss), nil
}

// realRows counts the non-negative targets.
func realRows(t []int32) int {
	n := 0
	for _, c := range t {
		if c >= 0 {
			n++
		}
	}
	return n
}

// logSumExp of one row, shifted by its max for stability.
func logSumExp[T Float](row []T) float64 {
	m := maxOf(row)
	return float64(m) + math.Log(ExpShiftSum(row, nil, m))
}

// xentRows are one forward's sums over the real rows: the loss (with
// label smoothing), the plain negative log-likelihood, and the row count.
type xentRows struct {
	loss, nll float64
	n         int
}

// xentFwd sums, over real rows, lse − (1−ε)·x_t − (ε/C)·Σ_j x_j: the
// cross-entropy against (1−ε)·onehot + ε/C (the plain −log p_t when ε = 0).
func xentFwd[T Float](x []T, t []int32, c int, eps float64) xentRows {
	var r xentRows
	for i, tc := range t {
		if tc < 0 {
			continue
		}
		row := x[i*c : (i+1)*c]
		nll := logSumExp(row) - float64(row[tc])
		r.nll += nll
		r.loss += nll
		if eps > 0 {
			var sum float64
			for _, v := range row {
				sum += float64(v)
			}
			r.loss += eps * (float64(row[tc]) - sum/float64(c))
		}
		r.n++
	}
	return r
}

func (o *xentOp) DiffWRT(int) []bool { return []bool{true} }
func (o *xentOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	d, err := G.ApplyOp(&xentGradOp{OpBase: NewOpBase("CrossEntropyGrad"), fwd: o}, inputs[0], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d}, nil
}

// xentGradOp computes (softmax(x) − q)·g/n (the mean) or ·g (the sum) for
// real rows, q the smoothed target distribution; 0 for padded ones.
type xentGradOp struct {
	OpBase
	fwd *xentOp
}

func (o *xentGradOp) Arity() int    { return 2 }
func (o *xentGradOp) Type() hm.Type { return hm.NewFnType(TensorType(2), scalarT, TensorType(2)) }
func (o *xentGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (o *xentGradOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *xentGradOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 2); err != nil {
		return nil, err
	}
	x, err := o.fwd.check(in[:1])
	if err != nil {
		return nil, err
	}
	g, err := Scalar(o.name, in[1])
	if err != nil {
		return nil, err
	}
	out := outBuf(pre, in, x.Dtype(), x.Shape()...)
	t := *o.fwd.targets
	sc := g
	if n := realRows(t); n > 0 && !o.fwd.opt.Sum {
		sc = g / float64(n)
	}
	switch x.Dtype() {
	case tensor.Float32:
		xentBwd(x.Float32s(), out.Float32s(), t, o.fwd.c, sc, o.fwd.opt.Smoothing)
	case tensor.Float64:
		xentBwd(x.Float64s(), out.Float64s(), t, o.fwd.c, sc, o.fwd.opt.Smoothing)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	return out, nil
}

// xentBwd writes each real row's (softmax − q)·sc: the softmax scaled in
// one exp pass, then the target's entry recomputed from the log-sum-exp in
// float64 (p−1 cancels when p is near 1, and a float32 p·s − s would lose
// it), and with label smoothing ε/C taken off every entry.
func xentBwd[T Float](x, dx []T, t []int32, c int, sc, eps float64) {
	off := eps / float64(c) * sc
	for i, tc := range t {
		if tc < 0 {
			continue
		}
		row, drow := x[i*c:(i+1)*c], dx[i*c:(i+1)*c]
		m := maxOf(row)
		s := ExpShiftSum(row, drow, m)
		scale(drow, T(sc/s))
		lse := float64(m) + math.Log(s)
		drow[tc] = T((math.Exp(float64(row[tc])-lse) - (1 - eps)) * sc)
		if eps > 0 {
			for j := range drow {
				drow[j] -= T(off)
			}
		}
	}
}
