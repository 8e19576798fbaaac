package train

import (
	"math"

	"github.com/normtop/normtop/nn"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// weightFeeds maps each of m's norm sites (in Sites order) to the indices,
// into params, of the weight matrices its output multiplies: the gw_norm
// probe's ‖∂L/∂W‖_F (docs/math.md §5). A model that does not name them
// (siteFeeder), and a site that feeds no matrix, get nil.
func weightFeeds(m model, params []*G.Node) [][]int {
	sites := m.Sites()
	out := make([][]int, len(sites))
	f, ok := m.(siteFeeder)
	if !ok {
		return out
	}
	at := make(map[string]int, len(params))
	for i, p := range params {
		at[p.Name()] = i
	}
	for s, st := range sites {
		for _, w := range f.feeds(st.Name) {
			if i, ok := at[w]; ok {
				out[s] = append(out[s], i)
			}
		}
	}
	return out
}

// gwNorms sets out[s] to the Frobenius norm of the gradients of site s's
// weight matrices taken together, √(Σ_W ‖∂L/∂W‖_F²), or NaN for a site that
// feeds none. grads are a net's gradient slices, in params order.
func gwNorms(out []float64, feeds [][]int, grads []*tensor.Dense) {
	for s, idx := range feeds {
		if len(idx) == 0 {
			out[s] = math.NaN()
			continue
		}
		var sq float64
		for _, i := range idx {
			sq += nn.DenseSumSq(grads[i])
		}
		out[s] = math.Sqrt(sq)
	}
}
