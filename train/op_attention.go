package train

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
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
// and the backward recomputes the probabilities instead of storing them.
func CausalAttention(qkv *G.Node, batch, seq, heads int) (*G.Node, error) {
	s := qkv.Shape()
	if s.Dims() != 2 || s[0] != batch*seq || s[1]%3 != 0 || (s[1]/3)%heads != 0 {
		return nil, fmt.Errorf("CausalAttention: qkv shape %v does not fit batch %d × seq %d with %d heads", s, batch, seq, heads)
	}
	op := &attnOp{opBase: newOpBase("CausalAttention"), b: batch, t: seq, h: heads, d: s[1] / 3}
	return G.ApplyOp(op, qkv)
}

type attnOp struct {
	opBase
	b, t, h, d int
}

func (o *attnOp) Arity() int    { return 1 }
func (o *attnOp) Type() hm.Type { return hm.NewFnType(tt(2), tt(2)) }
func (o *attnOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.b * o.t, o.d}, nil
}

func (o *attnOp) check(v G.Value) (*tensor.Dense, error) {
	x, err := dense(o.name, v)
	if err != nil {
		return nil, err
	}
	if s := x.Shape(); s.Dims() != 2 || s[0] != o.b*o.t || s[1] != 3*o.d {
		return nil, fmt.Errorf("%s: qkv shape %v, want [%d %d]", o.name, s, o.b*o.t, 3*o.d)
	}
	return x, nil
}

func (o *attnOp) Do(in ...G.Value) (G.Value, error) {
	if err := o.checkArity(len(in), 1); err != nil {
		return nil, err
	}
	x, err := o.check(in[0])
	if err != nil {
		return nil, err
	}
	out := newDense(x.Dtype(), o.b*o.t, o.d)
	switch xd := x.Data().(type) {
	case []float32:
		attnFwd(o, xd, out.Data().([]float32))
	case []float64:
		attnFwd(o, xd, out.Data().([]float64))
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	return out, nil
}

// probs fills p[0..i] with the attention probabilities of query row qi over
// key rows base..base+i of head column offset c.
func probs[T float](qkv []T, p []float64, base, i, c, dh, d3, d int, scale float64) {
	q := qkv[(base+i)*d3+c : (base+i)*d3+c+dh]
	max := math.Inf(-1)
	for j := 0; j <= i; j++ {
		k := qkv[(base+j)*d3+d+c : (base+j)*d3+d+c+dh]
		var s float64
		for e, qe := range q {
			s += float64(qe) * float64(k[e])
		}
		s *= scale
		p[j] = s
		max = math.Max(max, s)
	}
	var z float64
	for j := 0; j <= i; j++ {
		p[j] = math.Exp(p[j] - max)
		z += p[j]
	}
	for j := 0; j <= i; j++ {
		p[j] /= z
	}
}

func attnFwd[T float](o *attnOp, qkv, out []T) {
	dh, d3 := o.d/o.h, 3*o.d
	scale := 1 / math.Sqrt(float64(dh))
	p := make([]float64, o.t)
	acc := make([]float64, dh)
	for b := 0; b < o.b; b++ {
		base := b * o.t
		for h := 0; h < o.h; h++ {
			c := h * dh
			for i := 0; i < o.t; i++ {
				probs(qkv, p, base, i, c, dh, d3, o.d, scale)
				clear(acc)
				for j := 0; j <= i; j++ {
					v := qkv[(base+j)*d3+2*o.d+c : (base+j)*d3+2*o.d+c+dh]
					for e, ve := range v {
						acc[e] += p[j] * float64(ve)
					}
				}
				row := out[(base+i)*o.d+c : (base+i)*o.d+c+dh]
				for e := range row {
					row[e] = T(acc[e])
				}
			}
		}
	}
}

func (o *attnOp) DiffWRT(int) []bool { return []bool{true} }
func (o *attnOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	d, err := G.ApplyOp(&attnGradOp{opBase: newOpBase("CausalAttentionGrad"), fwd: o}, inputs[0], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d}, nil
}

// attnGradOp maps (qkv, dOut) to dqkv.
type attnGradOp struct {
	opBase
	fwd *attnOp
}

func (o *attnGradOp) Arity() int    { return 2 }
func (o *attnGradOp) Type() hm.Type { return hm.NewFnType(tt(2), tt(2), tt(2)) }
func (o *attnGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (o *attnGradOp) Do(in ...G.Value) (G.Value, error) {
	if err := o.checkArity(len(in), 2); err != nil {
		return nil, err
	}
	x, err := o.fwd.check(in[0])
	if err != nil {
		return nil, err
	}
	g, err := dense(o.name, in[1])
	if err != nil {
		return nil, err
	}
	if g.Size() != o.fwd.b*o.fwd.t*o.fwd.d {
		return nil, fmt.Errorf("%s: gradient shape %v", o.name, g.Shape())
	}
	out := newDense(x.Dtype(), x.Shape()...)
	switch xd := x.Data().(type) {
	case []float32:
		attnBwd(o.fwd, xd, g.Data().([]float32), out.Data().([]float32))
	case []float64:
		attnBwd(o.fwd, xd, g.Data().([]float64), out.Data().([]float64))
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	return out, nil
}

func attnBwd[T float](o *attnOp, qkv, gout, dqkv []T) {
	dh, d3, d := o.d/o.h, 3*o.d, o.d
	scale := 1 / math.Sqrt(float64(dh))
	p := make([]float64, o.t)
	dp := make([]float64, o.t)
	acc := make([]float64, len(dqkv)) // float64 accumulation, written back once
	for b := 0; b < o.b; b++ {
		base := b * o.t
		for h := 0; h < o.h; h++ {
			c := h * dh
			for i := 0; i < o.t; i++ {
				probs(qkv, p, base, i, c, dh, d3, d, scale)
				gi := gout[(base+i)*d+c : (base+i)*d+c+dh]
				var dot float64 // Σ_j p_j·dp_j
				for j := 0; j <= i; j++ {
					vo := (base+j)*d3 + 2*d + c
					var s float64
					for e, ge := range gi {
						s += float64(ge) * float64(qkv[vo+e])
						acc[vo+e] += p[j] * float64(ge) // dV_j += p_j·dO_i
					}
					dp[j] = s
					dot += p[j] * s
				}
				qo := (base+i)*d3 + c
				for j := 0; j <= i; j++ {
					ds := p[j] * (dp[j] - dot) * scale
					ko := (base+j)*d3 + d + c
					for e := 0; e < dh; e++ {
						acc[qo+e] += ds * float64(qkv[ko+e]) // dQ_i += ds·K_j
						acc[ko+e] += ds * float64(qkv[qo+e]) // dK_j += ds·Q_i
					}
				}
			}
		}
	}
	for i, v := range acc {
		dqkv[i] = T(v)
	}
}
