package nn

import (
	"fmt"
	"math"

	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
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
	d := s[1]
	rows := len(table) / d
	check := func() error {
		for i, p := range *pos {
			if p < 0 || int(p) >= rows {
				return fmt.Errorf("position %d at row %d outside [0,%d)", p, i, rows)
			}
		}
		return nil
	}
	grad := func(_ G.Nodes, g *G.Node) (G.Nodes, error) {
		return graphop.One(graphop.Op{Kind: "AddPositionsGrad", Out: s, F32: scaled[float32](scale), F64: scaled[float64](scale)}.Apply(g))
	}
	return graphop.Op{Kind: "AddPositions", Out: s, Prepare: check, Grad: grad,
		F32: addPositions[float32](scale, pos, table, d), F64: addPositions[float64](scale, pos, table, d)}.Apply(x)
}

func addPositions[T Float](scale float64, pos *[]int32, table []float64, d int) graphop.Kernel[T] {
	return func(out []T, in [][]T) error {
		x := in[0]
		for i, p := range *pos {
			pe := table[int(p)*d : (int(p)+1)*d]
			xr, or := x[i*d:(i+1)*d], out[i*d:(i+1)*d]
			for k, v := range xr {
				or[k] = T(scale*float64(v) + pe[k])
			}
		}
		return nil
	}
}

// scaled is y = s·x, AddPositions' backward.
func scaled[T Float](s float64) graphop.Kernel[T] {
	return func(out []T, in [][]T) error {
		for i, v := range in[0] {
			out[i] = T(s * float64(v))
		}
		return nil
	}
}
