package nn

import (
	"testing"

	"github.com/normtop/normtop/nn/nntest"
	G "gorgonia.org/gorgonia"
)

// gradCase is one finite-difference check: f applied to float64 inputs of
// the given shapes.
type gradCase struct {
	name   string
	shapes [][]int
	f      func(g *G.ExprGraph, in []*G.Node) (*G.Node, error)
}

// TestGradOwnOps: every op of the package against central finite
// differences (nntest.GradCheck).
func TestGradOwnOps(t *testing.T) {
	for _, c := range append(denseOpCases(), sequenceOpCases()...) {
		t.Run(c.name, func(t *testing.T) { nntest.GradCheck(t, c.shapes, nntest.Normal, c.f) })
	}
}

// denseOpCases: the ops that see their input as plain rows or images.
func denseOpCases() []gradCase {
	idx := []int32{3, 0, 3, 1, 4, 2}
	targets := []int32{2, 0, -1, 4, 1, 3}
	return []gradCase{
		{"AddBias/matrix", [][]int{{4, 3}, {3}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return AddBias(in[0], in[1]) }},
		{"AddBias/image", [][]int{{2, 3, 2, 2}, {3}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return AddBias(in[0], in[1]) }},
		{"MatMul", [][]int{{4, 3}, {3, 5}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return MatMul(in[0], in[1], false) }},
		{"MatMul→Bias→ReLU→MatMul", [][]int{{4, 3}, {3, 5}, {5}, {5, 2}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			h, err := MatMul(in[0], in[1], false)
			if err != nil {
				return nil, err
			}
			if h, err = AddBias(h, in[2]); err != nil {
				return nil, err
			}
			if h, err = ReLU(h); err != nil {
				return nil, err
			}
			return MatMul(h, in[3], false)
		}},
		{"Conv2D", [][]int{{2, 2, 6, 5}, {3, 2, 3, 2}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return Conv2D(in[0], in[1], false) }},
		{"Conv2D/1×1 filter", [][]int{{1, 3, 2, 2}, {2, 3, 1, 1}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return Conv2D(in[0], in[1], false) }},
		{"Conv2D/filter as large as the image", [][]int{{2, 1, 3, 3}, {2, 1, 3, 3}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return Conv2D(in[0], in[1], false) }},
		{"ReLU/matrix", [][]int{{4, 5}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return ReLU(in[0]) }},
		{"ReLU/image", [][]int{{2, 3, 2, 2}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return ReLU(in[0]) }},
		{"Embed", [][]int{{5, 3}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return Embed(in[0], &idx) }},
		{"CrossEntropy/padded", [][]int{{6, 5}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return CrossEntropy(in[0], &targets, Xent{}) }},
		{"CrossEntropy/sum", [][]int{{6, 5}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			return CrossEntropy(in[0], &targets, Xent{Sum: true})
		}},
		{"CrossEntropy/label smoothing 0.1", [][]int{{6, 5}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			return CrossEntropy(in[0], &targets, Xent{Smoothing: 0.1})
		}},
		{"CrossEntropy/sum, label smoothing 0.3", [][]int{{6, 5}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			return CrossEntropy(in[0], &targets, Xent{Sum: true, Smoothing: 0.3})
		}},
		{"Dropout", [][]int{{4, 5}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			y, op, err := Dropout(in[0], 0.3, NewStream(7))
			if op != nil {
				op.freeze = true // finite differences need the same mask on every run
			}
			return y, err
		}},
		// The chain a transformer block uses, so gradient accumulation across
		// ops is covered too.
		{"Embed→Attention→Bias→CrossEntropy", [][]int{{5, 6}, {6}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			e, err := Embed(in[0], &idx)
			if err != nil {
				return nil, err
			}
			qkv, err := G.Concat(1, e, e, e)
			if err != nil {
				return nil, err
			}
			a, err := CausalAttention(qkv, 2, 3, 2)
			if err != nil {
				return nil, err
			}
			if a, err = AddBias(a, in[1]); err != nil {
				return nil, err
			}
			sum, err := G.Add(a, e)
			if err != nil {
				return nil, err
			}
			return CrossEntropy(sum, &targets, Xent{})
		}},
	}
}

// sequenceOpCases: attention and mean pooling, which see rows as
// sequences, over fixed batches with padding and over a token budget's
// run-time Layout.
func sequenceOpCases() []gradCase {
	// two sequences of 4: the first with two padding rows at the end, the
	// second with a padding row in the middle (keys must skip it too)
	real := []bool{true, true, false, false, true, false, true, true}
	allPad := []bool{false, false, false, true, true, true}
	// a token-budget batch of 9 rows: 2 sequences of 3, then 3 rows of
	// padding past the layout
	lay := Layout{Rows: 2, T: 3}
	budgetReal := []bool{true, true, false, true, true, true, false, false, false}
	return []gradCase{
		{"CausalAttention/1head", [][]int{{2 * 3, 3 * 4}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return CausalAttention(in[0], 2, 3, 1) }},
		{"CausalAttention/2heads", [][]int{{2 * 4, 3 * 6}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return CausalAttention(in[0], 2, 4, 2) }},
		{"Attention/bidirectional", [][]int{{2 * 4, 3 * 4}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return Attention(in[0], 2, 4, 2, false, nil) }},
		{"Attention/bidirectional+keymask", [][]int{{2 * 4, 3 * 4}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return Attention(in[0], 2, 4, 2, false, &real) }},
		{"Attention/causal+keymask", [][]int{{2 * 4, 3 * 4}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return Attention(in[0], 2, 4, 1, true, &real) }},
		{"Attention/all-padding sequence", [][]int{{2 * 3, 3 * 2}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return Attention(in[0], 2, 3, 1, false, &allPad) }},
		{"MeanPool", [][]int{{2 * 4, 3}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return MeanPool(in[0], 2, 4, nil) }},
		{"MeanPool/masked", [][]int{{2 * 4, 3}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return MeanPool(in[0], 2, 4, &real) }},
		{"AttentionLayout/causal", [][]int{{9, 3 * 4}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			return AttentionLayout(in[0], &lay, 4, 2, true, &budgetReal)
		}},
		{"AttentionLayout/bidirectional", [][]int{{9, 3 * 2}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			return AttentionLayout(in[0], &lay, 3, 1, false, &budgetReal)
		}},
		{"MeanPoolLayout", [][]int{{9, 3}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			return MeanPoolLayout(in[0], &lay, 3, &budgetReal)
		}},
		{"MeanPool/all-padding sequence", [][]int{{2 * 3, 2}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return MeanPool(in[0], 2, 3, &allPad) }},
	}
}
