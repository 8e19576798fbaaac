package nn

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/normtop/normtop/internal/graphop"
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
	x := &xent{targets: targets, rows: s[0], c: s[1], opt: opt}
	n, err := graphop.Op{Kind: "CrossEntropy", Out: tensor.ScalarShape(), Prepare: x.check, Grad: x.grad, State: x,
		F32: xentLoss[float32](x), F64: xentLoss[float64](x)}.Apply(logits)
	x.loss = n
	return n, err
}

// XentResult is what the last run of a CrossEntropy node measured.
type XentResult struct {
	NLL  float64 // −log p(target), mean over the real rows (no smoothing)
	Real int     // real rows (non-negative targets)
}

// LastXent is the result of loss's last forward; ok is false when loss is
// not a CrossEntropy node.
func LastXent(loss *G.Node) (r XentResult, ok bool) {
	d, ok := graphop.Of(loss)
	if !ok {
		return XentResult{}, false
	}
	x, ok := d.State.(*xent)
	if !ok {
		return XentResult{}, false
	}
	return x.last, true
}

// xent is one CrossEntropy node's state.
type xent struct {
	targets *[]int32
	rows, c int
	opt     Xent
	last    XentResult // of the last forward
	kept    rowShifts  // each row's max and Σexp from the last forward, for the backward
	loss    *G.Node    // the forward's node, an input of the gradient's (see grad)
}

// rowShifts are the per-row max m and Σ exp(x−m) of one forward's logits,
// kept so that the backward makes one pass over a row (exp(x−m)·sc/Σ)
// instead of three (max, exp and sum, scale): the same values, so the same
// bits. for_ names the logits they were taken from (their first byte; nil:
// nothing kept): the executor keeps an op's input unchanged until its
// backward has read it.
type rowShifts struct {
	max, sum []float64
	for_     *byte
}

// keep readies r for a forward of x over rows rows.
func (r *rowShifts) keep(x unsafe.Pointer, rows int) {
	if len(r.max) != rows {
		r.max, r.sum = make([]float64, rows), make([]float64, rows)
	}
	r.for_ = (*byte)(x)
}

// take reports whether r holds x's shifts, and forgets them (a second
// backward recomputes).
func (r *rowShifts) take(x unsafe.Pointer) bool {
	ok := r.for_ != nil && r.for_ == (*byte)(x)
	r.for_ = nil
	return ok
}

// check wants one target per row of logits, each below the class count.
func (x *xent) check() error {
	t := *x.targets
	if x.rows != len(t) {
		return fmt.Errorf("%d rows of logits, %d targets", x.rows, len(t))
	}
	for i, c := range t {
		if int(c) >= x.c {
			return fmt.Errorf("target %d at row %d outside [0,%d)", c, i, x.c)
		}
	}
	return nil
}

// xentLoss is the loss, reduced as x.opt says; it keeps the plain NLL in
// x.last.
func xentLoss[T Float](x *xent) graphop.Kernel[T] {
	return func(out []T, in [][]T) error {
		x.kept.keep(unsafe.Pointer(unsafe.SliceData(in[0])), x.rows)
		r := xentFwd(in[0], *x.targets, x.c, x.opt.Smoothing, &x.kept)
		x.last = XentResult{Real: r.n}
		loss := r.loss
		if r.n > 0 {
			x.last.NLL = r.nll / float64(r.n)
			if !x.opt.Sum {
				loss /= float64(r.n)
			}
		}
		out[0] = T(loss)
		return nil
	}
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

// logSumExp of one row, shifted by its max m for stability; also the sum
// of the shifted exps.
func logSumExp[T Float](row []T, m T) (lse, sum float64) {
	sum = ExpShiftSum(row, nil, m)
	return float64(m) + math.Log(sum), sum
}

// xentRows are one forward's sums over the real rows: the loss (with
// label smoothing), the plain negative log-likelihood, and the row count.
type xentRows struct {
	loss, nll float64
	n         int
}

// xentFwd sums, over real rows, lse − (1−ε)·x_t − (ε/C)·Σ_j x_j: the
// cross-entropy against (1−ε)·onehot + ε/C (the plain −log p_t when ε = 0).
// It keeps each real row's max and Σexp in keep.
func xentFwd[T Float](x []T, t []int32, c int, eps float64, keep *rowShifts) xentRows {
	var r xentRows
	for i, tc := range t {
		if tc < 0 {
			continue
		}
		row := x[i*c : (i+1)*c]
		var m T
		var xs float64 // Σ row, the smoothing's
		if eps > 0 {
			m, xs = maxSum(row) // one pass for both
		} else {
			m = maxOf(row)
		}
		lse, sum := logSumExp(row, m)
		keep.max[i], keep.sum[i] = float64(m), sum
		nll := lse - float64(row[tc])
		r.nll += nll
		r.loss += nll
		if eps > 0 {
			r.loss += eps * (float64(row[tc]) - xs/float64(c))
		}
		r.n++
	}
	return r
}

// grad is (softmax(x) − q)·g/n (the mean) or ·g (the sum) for real rows,
// q the smoothed target distribution; 0 for padded ones. The forward's
// node is its third input, which the kernel does not read: it orders the
// forward before the gradient in every run (the upstream gradient of a
// loss is the constant 1, which does not), so the shifts the gradient
// reads are the ones this run's forward kept.
func (x *xent) grad(in G.Nodes, g *G.Node) (G.Nodes, error) {
	return graphop.One(graphop.Op{Kind: "CrossEntropyGrad", Out: in[0].Shape(), Prepare: x.check,
		F32: xentGrad[float32](x), F64: xentGrad[float64](x)}.Apply(in[0], g, x.loss))
}

func xentGrad[T Float](x *xent) graphop.Kernel[T] {
	return func(out []T, in [][]T) error {
		t := *x.targets
		sc := float64(in[1][0])
		if n := realRows(t); n > 0 && !x.opt.Sum {
			sc /= float64(n)
		}
		kept := &x.kept
		if !kept.take(unsafe.Pointer(unsafe.SliceData(in[0]))) {
			kept = nil
		}
		xentBwd(in[0], out, t, x.c, sc, x.opt.Smoothing, kept)
		for i, tc := range t { // the kernel writes every element: padded rows' zeros here
			if tc < 0 {
				clear(out[i*x.c : (i+1)*x.c])
			}
		}
		return nil
	}
}

// xentBwd writes each real row's (softmax − q)·sc: exp(x−m)·sc/Σ in one
// pass, with the max m and Σ the forward kept (kept nil: taken here, as
// the forward takes them), then the target's entry recomputed from the
// log-sum-exp in float64 (p−1 cancels when p is near 1, and a float32
// p·s − s would lose it), and with label smoothing ε/C taken off every
// entry in the same pass.
func xentBwd[T Float](x, dx []T, t []int32, c int, sc, eps float64, kept *rowShifts) {
	off := T(eps / float64(c) * sc)
	if !(eps > 0) {
		off = 0 // e·a − 0 is e·a: the plain scaling
	}
	for i, tc := range t {
		if tc < 0 {
			continue
		}
		row, drow := x[i*c:(i+1)*c], dx[i*c:(i+1)*c]
		var m T
		var s float64
		if kept != nil {
			m, s = T(kept.max[i]), kept.sum[i]
		} else {
			m = maxOf(row)
			s = ExpShiftSum(row, nil, m)
		}
		lse := float64(m) + math.Log(s)
		dt := T((math.Exp(float64(row[tc])-lse) - (1 - eps)) * sc)
		expScaleSub(row, drow, m, T(sc/s), off)
		drow[tc] = dt - off
	}
}
