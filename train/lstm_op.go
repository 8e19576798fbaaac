package train

import (
	"fmt"

	"github.com/normtop/normtop/internal/graphop"
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
	o := &lstmSeq{b: batch, t: seq, h: h, real: real, nh: nh, nc: nc}
	in := G.Nodes{xn, wh, bias}
	if gamH != nil {
		o.affine = true
		in = append(in, gamH, betH, gamC, betC)
	}
	o.want = [][]int{{batch * seq, 4 * h}, {h, 4 * h}, {4 * h}}
	if o.affine {
		o.want = append(o.want, []int{4 * h}, []int{4 * h}, []int{h}, []int{h})
	}
	return graphop.Op{Kind: "LSTMSeq", Out: tensor.Shape{batch * seq, h}, Prepare: o.check, Grad: o.grad,
		F32: lstmForwardKernel[float32](o), F64: lstmForwardKernel[float64](o)}.Apply(in...)
}

// lstmSeq is one LSTMSeq node's extent and state, shared by its forward,
// backward and read ops.
type lstmSeq struct {
	b, t, h int
	real    *[]bool // batch-major padding mask; nil = every row real
	nh, nc  *norm.Seq
	affine  bool    // inputs 3..6 are γ_h, β_h, γ_c, β_c
	want    [][]int // the inputs' shapes, in input order
	st      any     // *lstmState[T], the forward's record for the backward
}

// check wants the padding mask to have a flag per row.
func (o *lstmSeq) check() error {
	if o.real != nil && *o.real != nil && len(*o.real) != o.b*o.t {
		return fmt.Errorf("padding mask of %d rows, want %d", len(*o.real), o.b*o.t)
	}
	return nil
}

// lstmArgs are the op's inputs as slices; the γ, β are nil without them.
type lstmArgs[T nn.Float] struct {
	xn, wh, bias           []T
	gamH, betH, gamC, betC []T
}

func lstmArgsOf[T nn.Float](in [][]T) lstmArgs[T] {
	a := lstmArgs[T]{xn: in[0], wh: in[1], bias: in[2]}
	if len(in) == 7 {
		a.gamH, a.betH, a.gamC, a.betC = in[3], in[4], in[5], in[6]
	}
	return a
}

func lstmForwardKernel[T nn.Float](o *lstmSeq) graphop.Kernel[T] {
	return func(out []T, in [][]T) error { return lstmForward(o, lstmArgsOf(in), out) }
}

// grad adds the backward op, which maps (the forward's inputs, dh) to
// d xn and keeps the gradients of W_h, b and the norms' γ, β in the
// state, and one op per other input that reads its gradient from there.
func (o *lstmSeq) grad(inputs G.Nodes, grad *G.Node) (G.Nodes, error) {
	dx, err := graphop.Op{Kind: "LSTMSeqGrad", Out: tensor.Shape{o.b * o.t, 4 * o.h}, Prepare: o.check,
		F32: lstmBackwardKernel[float32](o), F64: lstmBackwardKernel[float64](o)}.Apply(append(append(G.Nodes{}, inputs...), grad)...)
	if err != nil {
		return nil, err
	}
	out := G.Nodes{dx}
	for i := 1; i < len(inputs); i++ {
		r, err := graphop.Op{Kind: "LSTMSeqGradRead", Out: tensor.Shape(o.want[i]),
			F32: lstmReadGrad[float32](o, i), F64: lstmReadGrad[float64](o, i)}.Apply(dx)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func lstmBackwardKernel[T nn.Float](o *lstmSeq) graphop.Kernel[T] {
	return func(dx []T, in [][]T) error {
		n := len(in) - 1
		return lstmBackward(o, lstmArgsOf(in[:n]), in[n], dx)
	}
}

// lstmReadGrad hands out the gradient of the forward's input which (1:
// W_h, 2: b, 3-6: γ_h, β_h, γ_c, β_c) that the backward left in the state.
func lstmReadGrad[T nn.Float](o *lstmSeq, which int) graphop.Kernel[T] {
	return func(out []T, _ [][]T) error {
		st, ok := o.st.(*lstmState[T])
		if !ok || !st.backwarded {
			return fmt.Errorf("read before the backward pass")
		}
		switch which {
		case 1:
			copy(out, st.dwh)
		case 2:
			copy(out, st.db)
		default:
			src := [...][]float64{st.dgh, st.dbh, st.dgc, st.dbc}[which-3]
			for k, v := range src {
				out[k] = T(v)
			}
		}
		return nil
	}
}
