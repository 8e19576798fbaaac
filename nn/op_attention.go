package nn

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// CausalAttention is fused multi-head causal self-attention. qkv is the
// [B·T, 3d] output of one projection: columns [0,d) are the queries, [d,2d)
// the keys, [2d,3d) the values, each split into heads of d/heads contiguous
// columns; rows are batch-major (row b·T+t is position t of sequence b). The
// result is the [B·T, d] concatenation of the heads' softmax(QKᵀ/√dₕ)V with
// position t attending to positions ≤ t.
//
// One op instead of gorgonia's Reshape/Transpose/BatchedMatMul/SoftMax chain:
// no 4-D transposes, the causal mask costs nothing (the loops stop at t),
// and the backward reads the forward's probabilities when they fit
// keptMax (recomputes them otherwise).
func CausalAttention(qkv *G.Node, batch, seq, heads int) (*G.Node, error) {
	return Attention(qkv, batch, seq, heads, true, nil)
}

// Attention is CausalAttention, or bidirectional attention when causal is
// false, with an optional key padding mask: when real is not nil, *real
// holds one flag per row (read when the op runs, so the trainer rewrites it
// per batch) and no position attends to a padding position. A query with
// no visible key (a row of an all-padding sequence) outputs zeros.
func Attention(qkv *G.Node, batch, seq, heads int, causal bool, real *[]bool) (*G.Node, error) {
	s := qkv.Shape()
	if s.Dims() != 2 || s[0] != batch*seq {
		return nil, fmt.Errorf("Attention: qkv shape %v does not fit batch %d × seq %d with %d heads", s, batch, seq, heads)
	}
	return AttentionLayout(qkv, &Layout{Rows: batch, T: seq}, seq, heads, causal, real)
}

// AttentionLayout is Attention over a batch whose split into sequences is
// read from *lay when the op runs (token-budget batches change it every
// step): lay.Rows sequences of lay.T ≤ maxT rows, row-major from row 0;
// rows from lay.Rows·lay.T on are padding and output zeros.
func AttentionLayout(qkv *G.Node, lay *Layout, maxT, heads int, causal bool, real *[]bool) (*G.Node, error) {
	s := qkv.Shape()
	if s.Dims() != 2 || s[1]%3 != 0 || heads < 1 || (s[1]/3)%heads != 0 || maxT < 1 || s[0] < maxT {
		return nil, fmt.Errorf("Attention: qkv shape %v does not fit sequences of up to %d rows with %d heads", s, maxT, heads)
	}
	kind := "CausalAttention"
	if !causal {
		kind = "Attention"
	}
	o := &attn{n: s[0], maxT: maxT, lay: lay, h: heads, d: s[1] / 3, causal: causal, real: real}
	var out *G.Node
	// the forward's node is the gradient's third input, which its kernel
	// does not read: it orders the forward, which keeps the probabilities,
	// before the gradient in every run (the upstream gradient need not
	// depend on the forward's output)
	grad := func(in G.Nodes, g *G.Node) (G.Nodes, error) {
		return graphop.One(graphop.Op{Kind: "AttentionGrad", Out: in[0].Shape(), Prepare: o.check,
			F32: attnBwd[float32](o), F64: attnBwd[float64](o)}.Apply(in[0], g, out))
	}
	out, err := graphop.Op{Kind: kind, Out: tensor.Shape{o.n, o.d}, Prepare: o.check, Grad: grad, State: o,
		F32: attnFwd[float32](o), F64: attnFwd[float64](o)}.Apply(qkv)
	return out, err
}

// attn is one attention node's extent and state, shared by its forward and
// backward.
type attn struct {
	n, maxT int     // rows of qkv; the longest sequence
	lay     *Layout // this run's sequences
	h, d    int
	causal  bool
	real    *[]bool // key padding mask, one flag per row; nil = every row real
	sq      any     // []T: two maxT×maxT matrices of scratch (P and dP), reused by every run
	kept    any     // []T: every sequence's and head's P of the last forward (keptLen), for the backward
	keptFor *byte   // the qkv the forward filled kept from (nil: kept holds nothing)
	keptLay [2]int  // and its layout (b, t)
	pads    []int   // scratch of attnProbs: one sequence's padding keys as runs (padRuns)
	b, t    int     // this run's layout, set by check
}

// squares returns the op's two T×T scratch matrices for this run's T. The
// forward and the backward op run one after the other in one goroutine,
// so they share them.
func squares[T Float](o *attn) (p, dp Mat[T]) {
	n := o.t * o.t
	s := scratch[T](&o.sq, 2*o.maxT*o.maxT)
	return Mat[T]{Data: s[:n], Rows: o.t, Cols: o.t, Stride: o.t}, Mat[T]{Data: s[n : 2*n], Rows: o.t, Cols: o.t, Stride: o.t}
}

// keptMax caps the probabilities an attention op keeps from its forward for
// its backward, in elements: a word LM's 1,024-token batch of 176-token
// rows at 4 heads keeps 720,896 (2.9 MB in float32), the classifier's
// 524,288; a 4,096-token batch (the paper's preset, 2.9 M) recomputes them.
// Keeping them saves the backward a second QKᵀ product and softmax per
// sequence and head (8.8% of the classifier's step in a profile).
const keptMax = 1 << 21

// keptLen is how many elements the op's kept probabilities may take: every
// sequence's and head's T×T matrix of the largest layout (b·t ≤ n, t ≤
// maxT), or 0 when that is above keptMax.
func (o *attn) keptLen() int {
	if n := o.h * o.n * o.maxT; n <= keptMax {
		return n
	}
	return 0
}

// probs returns the matrix the forward fills with sequence b's, head h's
// probabilities: its slot of the kept ones when the op keeps them, else
// the scratch p.
func probs[T Float](o *attn, b, h int, p Mat[T]) Mat[T] {
	n := o.keptLen()
	if n == 0 {
		return p
	}
	tt := o.t * o.t
	at := (b*o.h + h) * tt
	s := scratch[T](&o.kept, n)
	return Mat[T]{Data: s[at : at+tt], Rows: o.t, Cols: o.t, Stride: o.t}
}

// keys returns sequence b's key mask (nil when every key is real).
func (o *attn) keys(b int) []bool {
	if o.real == nil || *o.real == nil {
		return nil
	}
	return (*o.real)[b*o.t : (b+1)*o.t]
}

// visible is how many leading keys row i may attend to (before the padding
// mask).
func (o *attn) visible(i int) int {
	if o.causal {
		return i + 1
	}
	return o.t
}

// check checks the mask against the op and takes this run's layout into
// o.b, o.t.
func (o *attn) check() error {
	if o.real != nil && *o.real != nil && len(*o.real) != o.n {
		return fmt.Errorf("key mask of %d rows, want %d", len(*o.real), o.n)
	}
	o.b, o.t = o.lay.Rows, o.lay.T
	if o.b < 0 || o.t < 1 || o.t > o.maxT || o.b*o.t > o.n {
		return fmt.Errorf("layout of %d sequences × %d rows does not fit %d rows of up to %d", o.b, o.t, o.n, o.maxT)
	}
	return nil
}

// headMats returns strided views of sequence b's, head h's queries, keys
// and values inside qkv: T×dₕ matrices with row stride 3d, no copies.
func headMats[T Float](o *attn, qkv []T, b, h int) (q, k, v Mat[T]) {
	dh, d3 := o.d/o.h, 3*o.d
	base := b * o.t * d3
	view := func(col int) Mat[T] {
		return Mat[T]{Data: qkv[base+col : base+(o.t-1)*d3+col+dh], Rows: o.t, Cols: dh, Stride: d3}
	}
	return view(h * dh), view(o.d + h*dh), view(2*o.d + h*dh)
}

// attnProbs fills the T×T matrix p with softmax(QKᵀ/√dₕ) over the keys
// each row may see: positions below o.visible(i) whose key is real. Every
// other entry is zero, so the products with p need no mask of their own.
func attnProbs[T Float](o *attn, keys []bool, q, k Mat[T], p Mat[T], scale float64) {
	Mul(false, true, scale, q, k, 0, p)
	first := 0 // the first real key
	if keys != nil {
		o.pads, first = padRuns(keys, o.pads[:0])
	}
	for i := 0; i < p.Rows; i++ {
		row := p.Data[i*p.Stride : i*p.Stride+p.Cols]
		n := o.visible(i)
		if first >= n { // no real key in view: a row of zeros
			clear(row)
			continue
		}
		if keys != nil {
			hideKeys(row[:n], o.pads)
		}
		softmaxRow(row[:n])
		clear(row[n:])
	}
}

// padRuns appends to runs the padding keys of one sequence as [start, end)
// pairs, and returns the first real key (len(keys) when there is none).
// Every row of every head of the sequence reads the same keys: as runs, a
// row's masking is a few tight fills instead of a test per key (the
// per-key loop was 4% of the classifier's step).
func padRuns(keys []bool, runs []int) ([]int, int) {
	first := len(keys)
	for j := 0; j < len(keys); {
		if keys[j] {
			first = min(first, j)
			j++
			continue
		}
		s := j
		for j < len(keys) && !keys[j] {
			j++
		}
		runs = append(runs, s, j)
	}
	return runs, first
}

// hideKeys sets the scores of padding keys (runs from padRuns) to −Inf,
// which exp turns into exact zeros.
func hideKeys[T Float](row []T, runs []int) {
	inf := T(math.Inf(-1))
	for r := 0; r < len(runs) && runs[r] < len(row); r += 2 {
		seg := row[runs[r]:min(runs[r+1], len(row))]
		for j := range seg {
			seg[j] = inf
		}
	}
}

// attnFwd is every sequence's and head's softmax(QKᵀ/√dₕ)V, and zeros in
// the rows past the layout.
func attnFwd[T Float](o *attn) graphop.Kernel[T] {
	return func(out []T, in [][]T) error {
		qkv := in[0]
		dh := o.d / o.h
		scale := 1 / math.Sqrt(float64(dh))
		sp, _ := squares[T](o)
		o.keptFor = nil
		for b := 0; b < o.b; b++ {
			for h := 0; h < o.h; h++ {
				q, k, v := headMats(o, qkv, b, h)
				p := probs(o, b, h, sp)
				attnProbs(o, o.keys(b), q, k, p, scale)
				base := b*o.t*o.d + h*dh
				Mul(false, false, 1, p, v, 0, Mat[T]{Data: out[base : base+(o.t-1)*o.d+dh], Rows: o.t, Cols: dh, Stride: o.d})
			}
		}
		clear(out[o.b*o.t*o.d:])
		if o.keptLen() > 0 && len(qkv) > 0 {
			o.keptFor, o.keptLay = keptKey(qkv), [2]int{o.b, o.t}
		}
		return nil
	}
}

// keptKey names the qkv a forward kept its probabilities from: its first
// byte. The executor keeps an op's input unchanged until the op's backward
// has read it, so the same address means the same values.
func keptKey[T Float](qkv []T) *byte {
	return (*byte)(unsafe.Pointer(unsafe.SliceData(qkv)))
}

// attnBwd maps (qkv, dOut) to dqkv, with the probabilities the forward kept
// from this qkv (recomputed when it kept none); zeros in the rows past the
// layout.
func attnBwd[T Float](o *attn) graphop.Kernel[T] {
	return func(dqkv []T, in [][]T) error {
		attnBack(o, in[0], in[1], dqkv)
		clear(dqkv[o.b*o.t*3*o.d:])
		return nil
	}
}

func attnBack[T Float](o *attn, qkv, gout, dqkv []T) {
	dh := o.d / o.h
	scale := 1 / math.Sqrt(float64(dh))
	sp, dp := squares[T](o)
	kept := len(qkv) > 0 && o.keptFor == keptKey(qkv) && o.keptLay == [2]int{o.b, o.t}
	o.keptFor = nil // read once: a second backward recomputes
	for b := 0; b < o.b; b++ {
		for h := 0; h < o.h; h++ {
			q, k, v := headMats(o, qkv, b, h)
			dq, dk, dv := headMats(o, dqkv, b, h)
			base := b*o.t*o.d + h*dh
			g := Mat[T]{Data: gout[base : base+(o.t-1)*o.d+dh], Rows: o.t, Cols: dh, Stride: o.d}
			p := sp
			if kept {
				p = probs(o, b, h, sp)
			} else {
				attnProbs(o, o.keys(b), q, k, p, scale)
			}
			Mul(false, true, 1, g, v, 0, dp) // dP = dO·Vᵀ
			// dS = P ⊙ (dP − rowsum(dP ⊙ P)), scaled; zero wherever P is
			// (masked keys and, causally, above the diagonal). It reads P
			// row by row, which brings kept probabilities into the cache
			// before dV's product reads them a column at a time.
			for i := 0; i < o.t; i++ {
				pr, dr := p.Data[i*o.t:(i+1)*o.t], dp.Data[i*o.t:(i+1)*o.t]
				n := o.visible(i)
				softmaxGrad(pr[:n], dr[:n], scale)
				clear(dr[n:])
			}
			Mul(true, false, 1, p, g, 0, dv)   // dV = Pᵀ·dO
			Mul(false, false, 1, dp, k, 0, dq) // dQ = dS·K
			Mul(true, false, 1, dp, q, 0, dk)  // dK = dSᵀ·Q
		}
	}
}
