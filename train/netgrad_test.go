package train

import (
	"math"
	"testing"

	"github.com/normtop/normtop/internal/graphop"
	"github.com/normtop/normtop/nn/nntest"
)

// paramGrad is how one parameter of a net fares against finite
// differences: the largest |numeric − analytic| entry of its gradient and
// the largest magnitude of either.
type paramGrad struct {
	name        string
	diff, scale float64
}

// netGradCheck compares the gradient of n's loss with respect to every
// parameter, as the trainer computes it, with central finite differences
// (a float64 net, its batch already written). Each caller judges the
// result with its own tolerance.
func netGradCheck(t *testing.T, n *net) []paramGrad {
	t.Helper()
	// The graph's own loss (summed or smoothed as its spec says), not the
	// plain NLL mean run reports.
	loss := func() float64 {
		_, err := n.run()
		if err != nil {
			t.Fatal(err)
		}
		v, err := graphop.Scalar("loss", n.eng.Value(n.loss))
		n.reset()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if _, err := n.run(); err != nil {
		t.Fatal(err)
	}
	gd, err := n.gradData()
	if err != nil {
		t.Fatal(err)
	}
	var analytic [][]float64
	for _, g := range gd {
		analytic = append(analytic, append([]float64(nil), g.Float64s()...))
	}
	n.reset()
	const h = 1e-6
	out := make([]paramGrad, len(n.params))
	for i, p := range n.params {
		x := p.Value().Data().([]float64)
		out[i].name = p.Name()
		for k := range x {
			num := nntest.Central(x, k, h, loss)
			out[i].diff = math.Max(out[i].diff, math.Abs(num-analytic[i][k]))
			out[i].scale = math.Max(out[i].scale, math.Max(math.Abs(num), math.Abs(analytic[i][k])))
		}
	}
	return out
}
