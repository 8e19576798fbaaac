package nn

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// CrossEntropy is the fused, numerically stable softmax cross-entropy of the
// [N, C] logits against the class ids in *targets, as the mean over real
// rows: a negative target marks a padded row, which adds nothing to the sum
// and is not counted in the mean (the "mean over real tokens" convention the
// run header records). The caller rewrites *targets before every run.
func CrossEntropy(logits *G.Node, targets *[]int32) (*G.Node, error) {
	s := logits.Shape()
	if s.Dims() != 2 {
		return nil, fmt.Errorf("CrossEntropy: logits shape %v, want [N, C]", s)
	}
	return G.ApplyOp(&xentOp{OpBase: NewOpBase("CrossEntropy"), targets: targets, c: s[1]}, logits)
}

type xentOp struct {
	OpBase
	targets *[]int32
	c       int
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
	var loss float64
	switch x.Dtype() {
	case tensor.Float32:
		loss = xentFwd(x.Float32s(), *o.targets, o.c)
	case tensor.Float64:
		loss = xentFwd(x.Float64s(), *o.targets, o.c)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
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

func xentFwd[T Float](x []T, t []int32, c int) float64 {
	n := realRows(t)
	if n == 0 {
		return 0
	}
	var sum float64
	for i, tc := range t {
		if tc < 0 {
			continue
		}
		row := x[i*c : (i+1)*c]
		sum += logSumExp(row) - float64(row[tc])
	}
	return sum / float64(n)
}

func (o *xentOp) DiffWRT(int) []bool { return []bool{true} }
func (o *xentOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	d, err := G.ApplyOp(&xentGradOp{OpBase: NewOpBase("CrossEntropyGrad"), fwd: o}, inputs[0], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d}, nil
}

// xentGradOp computes (softmax(x) − onehot(t))·g/n for real rows, 0 for padded ones.
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
	switch x.Dtype() {
	case tensor.Float32:
		xentBwd(x.Float32s(), out.Float32s(), *o.fwd.targets, o.fwd.c, g)
	case tensor.Float64:
		xentBwd(x.Float64s(), out.Float64s(), *o.fwd.targets, o.fwd.c, g)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	return out, nil
}

// xentBwd writes each real row's softmax scaled by g/n in one exp pass,
// then recomputes the target's entry from the log-sum-exp in float64:
// p−1 cancels when p is near 1, and a float32 p·s − s would lose it.
func xentBwd[T Float](x, dx []T, t []int32, c int, g float64) {
	n := realRows(t)
	if n == 0 {
		return
	}
	sc := g / float64(n)
	for i, tc := range t {
		if tc < 0 {
			continue
		}
		row, drow := x[i*c:(i+1)*c], dx[i*c:(i+1)*c]
		m := maxOf(row)
		s := ExpShiftSum(row, drow, m)
		scale(drow, T(sc/s))
		lse := float64(m) + math.Log(s)
		drow[tc] = T((math.Exp(float64(row[tc])-lse) - 1) * sc)
	}
}
