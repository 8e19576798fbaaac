package nn

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// FairseqPosOffset is where fairseq's positions start: a real token at
// index p of its row gets position p + padding_idx + 1 = p + 2
// (fairseq.utils.make_positions with padding_idx 1).
const FairseqPosOffset = 2

// Sinusoids is fairseq's SinusoidalPositionalEmbedding table for positions
// 0..n-1 and d features: with h = ⌊d/2⌋ and ω_i = 10000^(−i/(h−1)), row p
// is sin(p·ω_0..h−1) in its first h features and cos(p·ω_0..h−1) in the
// next h (fairseq concatenates the halves rather than interleaving them as
// Vaswani et al. write it); an odd d leaves the last feature 0.
func Sinusoids(n, d int) []float64 {
	h := d / 2
	out := make([]float64, n*d)
	step := 0.0
	if h > 1 {
		step = math.Log(10000) / float64(h-1)
	}
	for p := range n {
		row := out[p*d : (p+1)*d]
		for i := range h {
			a := float64(p) * math.Exp(-float64(i)*step)
			row[i], row[h+i] = math.Sin(a), math.Cos(a)
		}
	}
	return out
}

// AddPositions returns scale·x + P[(*pos)[i]] row by row: fairseq's input,
// the token embeddings times √d plus fixed positional rows P ([n, d],
// float64, the same for float32 graphs). *pos is read when the op runs
// (the trainer rewrites it per batch). Only x is differentiable: dx =
// scale·g.
func AddPositions(x *G.Node, scale float64, pos *[]int32, table []float64) (*G.Node, error) {
	s := x.Shape()
	if s.Dims() != 2 || len(*pos) != s[0] || s[1] < 1 || len(table)%s[1] != 0 {
		return nil, fmt.Errorf("AddPositions: input %v, %d positions, table of %d values", s, len(*pos), len(table))
	}
	return G.ApplyOp(&posOp{OpBase: NewOpBase("AddPositions"), scale: scale, pos: pos, table: table, n: s[0], d: s[1]}, x)
}

type posOp struct {
	OpBase
	scale float64
	pos   *[]int32
	table []float64
	n, d  int
}

func (o *posOp) Arity() int    { return 1 }
func (o *posOp) Type() hm.Type { return hm.NewFnType(TensorType(2), TensorType(2)) }
func (o *posOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.n, o.d}, nil
}
func (o *posOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *posOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	x, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	rows := len(o.table) / o.d
	for i, p := range *o.pos {
		if p < 0 || int(p) >= rows {
			return nil, fmt.Errorf("%s: position %d at row %d outside [0,%d)", o.name, p, i, rows)
		}
	}
	out := OutBufFull(pre, in, x.Dtype(), o.n, o.d)
	switch x.Dtype() {
	case tensor.Float32:
		addPositions(x.Float32s(), out.Float32s(), o)
	case tensor.Float64:
		addPositions(x.Float64s(), out.Float64s(), o)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	return out, nil
}

func addPositions[T Float](x, out []T, o *posOp) {
	for i, p := range *o.pos {
		pe := o.table[int(p)*o.d : (int(p)+1)*o.d]
		xr, or := x[i*o.d:(i+1)*o.d], out[i*o.d:(i+1)*o.d]
		for k, v := range xr {
			or[k] = T(o.scale*float64(v) + pe[k])
		}
	}
}

func (o *posOp) DiffWRT(int) []bool { return []bool{true} }
func (o *posOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(&scaleOp{OpBase: NewOpBase("AddPositionsGrad"), scale: o.scale}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

// scaleOp is y = scale·x, AddPositions' backward.
type scaleOp struct {
	OpBase
	scale float64
}

func (o *scaleOp) Arity() int    { return 1 }
func (o *scaleOp) Type() hm.Type { return hm.NewFnType(TensorType(2), TensorType(2)) }
func (o *scaleOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (o *scaleOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *scaleOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	g, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	out := OutBufFull(pre, in, g.Dtype(), g.Shape()...)
	switch g.Dtype() {
	case tensor.Float32:
		scaleInto(g.Float32s(), out.Float32s(), o.scale)
	case tensor.Float64:
		scaleInto(g.Float64s(), out.Float64s(), o.scale)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, g.Dtype())
	}
	return out, nil
}

func scaleInto[T Float](x, out []T, s float64) {
	for i, v := range x {
		out[i] = T(s * float64(v))
	}
}
