package nn

import (
	"math/rand"
	"slices"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestLayoutOpsMatchFixedBatch: attention and mean pooling over a
// token-budget graph (a run-time Layout of 2 sequences of 3 rows in a
// graph of 10 rows) give, on the layout's rows, what the ops of a graph
// built for exactly 2×3 give, and zeros past them.
func TestLayoutOpsMatchFixedBatch(t *testing.T) {
	const n, rows, seq, d = 10, 2, 3, 4
	r := rand.New(rand.NewSource(3))
	qkv := make([]float64, n*3*d)
	for i := range qkv {
		qkv[i] = r.NormFloat64()
	}
	real := []bool{true, true, false, true, false, true, false, false, false, false}
	lay := Layout{Rows: rows, T: seq}
	realFixed := slices.Clone(real[:rows*seq])
	for _, c := range []struct {
		name    string
		budget  func(x *G.Node) (*G.Node, error)
		fixed   func(x *G.Node) (*G.Node, error)
		inWidth int
	}{
		{"attention", func(x *G.Node) (*G.Node, error) { return AttentionLayout(x, &lay, 5, 2, true, &real) },
			func(x *G.Node) (*G.Node, error) { return Attention(x, rows, seq, 2, true, &realFixed) }, 3 * d},
		{"pool", func(x *G.Node) (*G.Node, error) { return MeanPoolLayout(x, &lay, 4, &real) },
			func(x *G.Node) (*G.Node, error) { return MeanPool(x, rows, seq, &realFixed) }, 3 * d},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func(m int, f func(*G.Node) (*G.Node, error)) []float64 {
				g := G.NewGraph()
				x := G.NodeFromAny(g, tensor.New(tensor.WithShape(m, c.inWidth), tensor.WithBacking(slices.Clone(qkv[:m*c.inWidth]))))
				y, err := f(x)
				if err != nil {
					t.Fatal(err)
				}
				vm := G.NewTapeMachine(g)
				defer vm.Close()
				if err := vm.RunAll(); err != nil {
					t.Fatal(err)
				}
				return slices.Clone(y.Value().Data().([]float64))
			}
			got, want := run(n, c.budget), run(rows*seq, c.fixed)
			if !slices.Equal(got[:len(want)], want) {
				t.Fatalf("layout rows differ from the fixed batch's:\n%v\n%v", got[:len(want)], want)
			}
			for i, v := range got[len(want):] {
				if v != 0 {
					t.Fatalf("value %d past the layout is %v, want 0", len(want)+i, v)
				}
			}
		})
	}
}
