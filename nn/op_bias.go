package nn

import (
	"fmt"

	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// AddBias returns x + b with b (a vector) broadcast along axis 1 of x: per
// feature for a [N, d] matrix, per channel for a [B, C, H, W] image. It
// replaces gorgonia's BroadcastAdd, whose gradient path builds several extra
// nodes per use.
func AddBias(x, b *G.Node) (*G.Node, error) {
	xs := x.Shape()
	if xs.Dims() < 2 || b.Shape().TotalSize() != xs[1] {
		return nil, fmt.Errorf("AddBias: x %v and b %v do not match on axis 1", xs, b.Shape())
	}
	grad := func(in G.Nodes, g *G.Node) (G.Nodes, error) {
		db, err := biasGrad(g)
		if err != nil {
			return nil, err
		}
		return G.Nodes{g, db}, nil
	}
	return graphop.Op{Kind: "AddBias", Out: xs, F32: biasFwd[float32](xs), F64: biasFwd[float64](xs), Grad: grad}.Apply(x, b)
}

// inner is the number of contiguous elements that share one bias entry.
func inner(s tensor.Shape) int {
	n := 1
	for _, d := range s[2:] {
		n *= d
	}
	return n
}

// biasFwd is x + b over x of shape s.
func biasFwd[T Float](s tensor.Shape) graphop.Kernel[T] {
	in, c := inner(s), s[1]
	return func(out []T, xb [][]T) error {
		x, b := xb[0], xb[1]
		if in == 1 { // [N, d]: one bias per column
			for r := 0; r < len(x); r += c {
				addRow(x[r:r+c], b[:c], out[r:r+c])
			}
			return nil
		}
		for blk := 0; blk*in < len(x); blk++ { // [B, C, ...]: one bias per channel block
			bk := b[blk%c]
			xr, or := x[blk*in:(blk+1)*in], out[blk*in:(blk+1)*in]
			for i, v := range xr {
				or[i] = v + bk
			}
		}
		return nil
	}
}

// biasGrad sums the upstream gradient g over every axis but 1, in float64
// (one accumulator of C sums, reused by every run).
func biasGrad(g *G.Node) (*G.Node, error) {
	s := g.Shape()
	acc := make([]float64, s[1])
	return graphop.Op{Kind: "AddBiasGrad", Out: tensor.Shape{s[1]}, F32: biasBwd[float32](s, acc), F64: biasBwd[float64](s, acc)}.Apply(g)
}

// biasBwd sums g over every axis but 1 into db, in float64 in acc.
func biasBwd[T Float](s tensor.Shape, acc []float64) graphop.Kernel[T] {
	in, c := inner(s), s[1]
	return func(db []T, gs [][]T) error {
		g := gs[0]
		clear(acc)
		if in == 1 { // [N, d]: column sums, one row at a time
			for r := 0; r < len(g); r += c {
				colAdd(g[r:r+c], acc)
			}
		}
		for blk := 0; in > 1 && blk*in < len(g); blk++ {
			var s float64
			for _, v := range g[blk*in : (blk+1)*in] {
				s += float64(v)
			}
			acc[blk%c] += s
		}
		for i := range db {
			db[i] = T(acc[i])
		}
		return nil
	}
}
