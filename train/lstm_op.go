package train

import (
	"fmt"
	"unsafe"

	"github.com/chewxy/hm"
	"github.com/normtop/normtop/nn"
	"github.com/normtop/normtop/norm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// LSTMSeq is one LSTM layer over whole sequences, fused into one op
// (docs/math.md §10). xn is N_x(W_x x_t) for every position, [B·T, 4H] with
// batch-major rows (row b·T+t); wh is W_h [H, 4H]; bias is b [4H]; nh and
// nc apply the variant's N_h and N_c, whose γ, β (norm.Layer.Params) are
// the four extra inputs when the variant has them. Per time step t:
//
//	gates = xn_t + N_h(h_{t−1}·W_h) + b      columns: i, f, o, g (H each)
//	c_t = σ(f)⊙c_{t−1} + σ(i)⊙tanh(g);  h_t = σ(o)⊙tanh(N_c(c_t))
//
// with h_{−1} = c_{−1} = 0. A padding position (real[b·T+t] false; real
// is read when the op runs, nil = every row real) leaves h and c as they
// were; its output row is the carried h, and it reaches no gradient and no
// statistic of N_h or N_c. The result is h_t for every position, [B·T, H].
//
// One op instead of T unrolled steps of graph nodes: the recurrence needs
// a small matrix product per step, and a graph of 20 nodes per step would
// cost allocations and bookkeeping per node; here a step allocates
// nothing. The backward is backpropagation through time over the sequence.
// N_h and N_c run on norm.Seq: the norm kernels row range by row range,
// then one pass over all rows for the taps and dγ, dβ.
func LSTMSeq(xn, wh, bias *G.Node, nh, nc *norm.Seq, gamH, betH, gamC, betC *G.Node, batch, seq int, real *[]bool) (*G.Node, error) {
	xs, ws := xn.Shape(), wh.Shape()
	if ws.Dims() != 2 || ws[1] != 4*ws[0] {
		return nil, fmt.Errorf("LSTMSeq: W_h shape %v, want [H, 4H]", ws)
	}
	h := ws[0]
	if xs.Dims() != 2 || xs[0] != batch*seq || xs[1] != 4*h {
		return nil, fmt.Errorf("LSTMSeq: input shape %v, want [%d, %d]", xs, batch*seq, 4*h)
	}
	op := &lstmOp{OpBase: nn.NewOpBase("LSTMSeq"), b: batch, t: seq, h: h, real: real, nh: nh, nc: nc}
	in := []*G.Node{xn, wh, bias}
	if gamH != nil {
		op.affine = true
		in = append(in, gamH, betH, gamC, betC)
	}
	op.want = [][]int{{batch * seq, 4 * h}, {h, 4 * h}, {4 * h}}
	if op.affine {
		op.want = append(op.want, []int{4 * h}, []int{4 * h}, []int{h}, []int{h})
	}
	return G.ApplyOp(op, in...)
}

type lstmOp struct {
	nn.OpBase
	b, t, h int
	real    *[]bool // batch-major padding mask; nil = every row real
	nh, nc  *norm.Seq
	affine  bool    // inputs 3..6 are γ_h, β_h, γ_c, β_c
	want    [][]int // the inputs' shapes, in input order
	st      any     // *lstmState[T], the forward's record for the backward
}

func (o *lstmOp) Arity() int {
	if o.affine {
		return 7
	}
	return 3
}

func (o *lstmOp) Type() hm.Type {
	ts := []hm.Type{nn.TensorType(2), nn.TensorType(2), nn.TensorType(1)}
	if o.affine {
		ts = append(ts, nn.TensorType(1), nn.TensorType(1), nn.TensorType(1), nn.TensorType(1))
	}
	return hm.NewFnType(append(ts, nn.TensorType(2))...)
}

func (o *lstmOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.b * o.t, o.h}, nil
}

// shapes are the inputs' wanted shapes, in input order.
func (o *lstmOp) shapes() [][]int { return o.want }

// inputs checks the op's inputs (and the padding mask) and returns their
// dense tensors.
func (o *lstmOp) inputs(in []G.Value) (ds lstmInputs, err error) {
	want := o.want
	if err := o.CheckArity(len(in), len(want)); err != nil {
		return ds, err
	}
	for i, v := range in {
		d, err := nn.AsDense(o.String(), v)
		if err != nil {
			return ds, err
		}
		if !d.Shape().Eq(tensor.Shape(want[i])) || (i > 0 && d.Dtype() != ds[0].Dtype()) {
			return ds, fmt.Errorf("%s: input %d: shape %v dtype %v, want %v and the dtype of input 0", o.String(), i, d.Shape(), d.Dtype(), want[i])
		}
		ds[i] = d
	}
	if o.real != nil && *o.real != nil && len(*o.real) != o.b*o.t {
		return ds, fmt.Errorf("%s: padding mask of %d rows, want %d", o.String(), len(*o.real), o.b*o.t)
	}
	return ds, nil
}

// lstmInputs are the op's input tensors (unused entries nil): an array, so
// that checking them allocates nothing.
type lstmInputs [7]*tensor.Dense

func (o *lstmOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *lstmOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	ds, err := o.inputs(in)
	if err != nil {
		return nil, err
	}
	out := nn.OutBufFull(pre, in, ds[0].Dtype(), o.b*o.t, o.h)
	switch ds[0].Dtype() {
	case tensor.Float32:
		err = lstmForward(o, lstmArgsOf[float32](ds), out.Float32s())
	case tensor.Float64:
		err = lstmForward(o, lstmArgsOf[float64](ds), out.Float64s())
	default:
		err = fmt.Errorf("%s: dtype %v", o.String(), ds[0].Dtype())
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// lstmArgs are the op's inputs as slices; the γ, β are nil without them.
type lstmArgs[T nn.Float] struct {
	xn, wh, bias           []T
	gamH, betH, gamC, betC []T
}

func lstmArgsOf[T nn.Float](ds lstmInputs) lstmArgs[T] {
	s := func(i int) []T {
		if ds[i] == nil {
			return nil
		}
		return denseFloats[T](ds[i])
	}
	return lstmArgs[T]{xn: s(0), wh: s(1), bias: s(2), gamH: s(3), betH: s(4), gamC: s(5), betC: s(6)}
}

func (o *lstmOp) DiffWRT(n int) []bool {
	w := make([]bool, n)
	for i := range w {
		w[i] = true
	}
	return w
}

// SymDiff adds the backward op (which returns d xn and keeps the other
// gradients) and one read op per other input.
func (o *lstmOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	bw := &lstmGradOp{OpBase: nn.NewOpBase("LSTMSeqGrad"), fwd: o}
	dx, err := G.ApplyOp(bw, append(append(G.Nodes{}, inputs...), grad)...)
	if err != nil {
		return nil, err
	}
	out := G.Nodes{dx}
	for i := 1; i < len(inputs); i++ {
		r, err := G.ApplyOp(&lstmReadOp{OpBase: nn.NewOpBase("LSTMSeqGradRead"), fwd: o, which: i}, dx)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// lstmGradOp maps (the forward's inputs, dh) to d xn; the gradients of
// W_h, b and the norms' γ, β wait in the forward op's state for the read
// ops.
type lstmGradOp struct {
	nn.OpBase
	fwd *lstmOp
}

func (o *lstmGradOp) Arity() int { return o.fwd.Arity() + 1 }
func (o *lstmGradOp) Type() hm.Type {
	ts := make([]hm.Type, 0, o.Arity()+1)
	for _, s := range o.fwd.shapes() {
		ts = append(ts, nn.TensorType(len(s)))
	}
	return hm.NewFnType(append(ts, nn.TensorType(2), nn.TensorType(2))...)
}
func (o *lstmGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.fwd.b * o.fwd.t, 4 * o.fwd.h}, nil
}
func (o *lstmGradOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *lstmGradOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	f := o.fwd
	if len(in) != f.Arity()+1 {
		return nil, fmt.Errorf("%s: got %d inputs, want %d", o.String(), len(in), f.Arity()+1)
	}
	ds, err := f.inputs(in[:len(in)-1])
	if err != nil {
		return nil, err
	}
	g, err := nn.AsDense(o.String(), in[len(in)-1])
	if err != nil {
		return nil, err
	}
	if g.Size() != f.b*f.t*f.h || g.Dtype() != ds[0].Dtype() {
		return nil, fmt.Errorf("%s: gradient shape %v dtype %v", o.String(), g.Shape(), g.Dtype())
	}
	out := nn.OutBufFull(pre, in, ds[0].Dtype(), f.b*f.t, 4*f.h)
	switch ds[0].Dtype() {
	case tensor.Float32:
		err = lstmBackward(f, lstmArgsOf[float32](ds), g.Float32s(), out.Float32s())
	case tensor.Float64:
		err = lstmBackward(f, lstmArgsOf[float64](ds), g.Float64s(), out.Float64s())
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// lstmReadOp hands out the gradient of the forward's input which (1: W_h,
// 2: b, 3-6: γ_h, β_h, γ_c, β_c) that the backward op left in the state.
type lstmReadOp struct {
	nn.OpBase
	fwd   *lstmOp
	which int
}

func (o *lstmReadOp) Arity() int { return 1 }
func (o *lstmReadOp) Type() hm.Type {
	return hm.NewFnType(nn.TensorType(2), nn.TensorType(len(o.fwd.shapes()[o.which])))
}
func (o *lstmReadOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape(o.fwd.shapes()[o.which]).Clone(), nil
}
func (o *lstmReadOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *lstmReadOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	x, err := nn.AsDense(o.String(), in[0])
	if err != nil {
		return nil, err
	}
	out := nn.OutBufFull(pre, in, x.Dtype(), o.fwd.shapes()[o.which]...)
	switch x.Dtype() {
	case tensor.Float32:
		err = lstmReadGrad(o, out.Float32s())
	case tensor.Float64:
		err = lstmReadGrad(o, out.Float64s())
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func lstmReadGrad[T nn.Float](o *lstmReadOp, out []T) error {
	st, ok := o.fwd.st.(*lstmState[T])
	if !ok || !st.backwarded {
		return fmt.Errorf("%s: read before the backward pass", o.String())
	}
	switch o.which {
	case 1:
		copy(out, st.dwh)
	case 2:
		copy(out, st.db)
	default:
		src := [...][]float64{st.dgh, st.dbh, st.dgc, st.dbc}[o.which-3]
		for k, v := range src {
			out[k] = T(v)
		}
	}
	return nil
}

// denseFloats is d's backing slice as []T (d's dtype is T's, checked by the
// caller), without the allocation of boxing it through Dense.Data.
func denseFloats[T nn.Float](d *tensor.Dense) []T {
	var z T
	if unsafe.Sizeof(z) == 4 {
		s := d.Float32s()
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
	}
	s := d.Float64s()
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}
