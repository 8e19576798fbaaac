package nn

import (
	"fmt"
	"math/rand"

	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
)

// Dropout zeroes each entry of x with probability p and scales the kept ones
// by 1/(1−p) (inverted dropout), so the eval graph, which leaves Dropout
// out, needs no rescaling. Masks come from rng, which the caller seeds: the
// runner gives every variant an RNG with the same seed, and since every
// variant's graph draws the same number of masks in the same order, every
// variant sees the same masks. gorgonia's own Dropout scales the gradient
// by 1/p and seeds from the clock; this one has neither problem.
//
// The returned *DropoutSite lets the caller switch it off (identity) with
// SetTraining(false).
func Dropout(x *G.Node, p float64, rng *rand.Rand) (*G.Node, *DropoutSite, error) {
	if p < 0 || p >= 1 {
		return nil, nil, fmt.Errorf("dropout: p=%g, want 0 ≤ p < 1", p)
	}
	o := &DropoutSite{p: p, rng: rng, training: true}
	s := x.Shape()
	grad := func(_ G.Nodes, g *G.Node) (G.Nodes, error) {
		return graphop.One(graphop.Op{Kind: "DropoutGrad", Out: s, F32: mulMask[float32](o), F64: mulMask[float64](o)}.Apply(g))
	}
	n := s.TotalSize()
	y, err := graphop.Op{Kind: "Dropout", Out: s, Prepare: func() error { o.drawMask(n); return nil }, Grad: grad,
		F32: mulMask[float32](o), F64: mulMask[float64](o)}.Apply(x)
	return y, o, err
}

// DropoutSite is one dropout site's state: whether it drops, and the mask
// of its last forward, which its backward applies again.
type DropoutSite struct {
	p        float64
	rng      *rand.Rand
	training bool
	freeze   bool      // reuse the last mask (finite-difference tests only)
	mask     []float64 // 0 or 1/(1−p) per entry, the mask of the last forward
}

// SetTraining switches between dropping (true) and the identity (false).
func (o *DropoutSite) SetTraining(on bool) { o.training = on }

func (o *DropoutSite) drawMask(n int) {
	if o.freeze && len(o.mask) == n {
		return
	}
	if cap(o.mask) < n {
		o.mask = make([]float64, n)
	}
	o.mask = o.mask[:n]
	keep := 1 / (1 - o.p)
	for i := range o.mask {
		if !o.training || o.p == 0 {
			o.mask[i] = 1
		} else if o.rng.Float64() < o.p {
			o.mask[i] = 0
		} else {
			o.mask[i] = keep
		}
	}
}

// mulMask is x times the site's last mask, entry by entry: the forward
// (x the input) and the backward (x the upstream gradient).
func mulMask[T Float](o *DropoutSite) graphop.Kernel[T] {
	return func(out []T, in [][]T) error {
		for i, v := range in[0] {
			out[i] = v * T(o.mask[i])
		}
		return nil
	}
}
