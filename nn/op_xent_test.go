package nn

import (
	"math"
	"math/rand"
	"testing"

	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestXentKeptShifts: the cross-entropy's backward that reads the row
// maxima and sums its forward kept gives the bits of the one that takes
// them itself (its second run, nothing kept any more), in float32 (kernels
// on and off) and float64, with and without label smoothing; after a
// forward on other logits the backward on the first recomputes.
func TestXentKeptShifts(t *testing.T) {
	for _, eps := range []float64{0, 0.1} {
		bothPaths(t, func(t *testing.T) { xentKeptMatches[float32](t, eps) })
		xentKeptMatches[float64](t, eps)
	}
}

func xentKeptMatches[T Float](t *testing.T, eps float64) {
	t.Helper()
	const rows, c = 5, 37
	r := rand.New(rand.NewSource(21))
	targets := []int32{3, -1, 36, 0, 17}
	x := &xent{targets: &targets, rows: rows, c: c, opt: Xent{Smoothing: eps}}
	fill := func() []T {
		v := make([]T, rows*c)
		for i := range v {
			v[i] = T(r.NormFloat64() * 3)
		}
		return v
	}
	logits, other := fill(), fill()
	fwd, bwd := xentLoss[T](x), xentGrad[T](x)
	loss := []T{0}
	g := []T{1}
	if err := fwd(loss, [][]T{logits}); err != nil {
		t.Fatal(err)
	}
	if x.kept.for_ == nil {
		t.Fatal("the forward kept nothing")
	}
	kept, again := make([]T, rows*c), make([]T, rows*c)
	if err := bwd(kept, [][]T{logits, g}); err != nil {
		t.Fatal(err)
	}
	if x.kept.for_ != nil {
		t.Fatal("the backward left the kept shifts marked")
	}
	if err := bwd(again, [][]T{logits, g}); err != nil {
		t.Fatal(err)
	}
	same := func(what string) {
		for i := range kept {
			if math.Float64bits(float64(kept[i])) != math.Float64bits(float64(again[i])) {
				t.Fatalf("ε=%v %s: dx[%d] %v, want %v", eps, what, i, again[i], kept[i])
			}
		}
	}
	same("recomputed")
	if err := fwd(loss, [][]T{other}); err != nil {
		t.Fatal(err)
	}
	if err := bwd(again, [][]T{logits, g}); err != nil {
		t.Fatal(err)
	}
	same("after a forward on other logits")
}

// TestKeptStateInExecutor: in a graph run by the Executor, the
// cross-entropy's and attention's gradients read what this run's forward
// kept, never a previous run's: over runs whose input tensor is rewritten
// in place (the same address, new values), each gradient is the bits of
// the one computed without kept state. The gradient ops take the forward's
// node as an input, which orders them after it (the loss's upstream
// gradient is a constant, which does not).
func TestKeptStateInExecutor(t *testing.T) {
	const rows, c, heads = 6, 3 * 4, 2
	r := rand.New(rand.NewSource(22))
	targets := []int32{1, 0, -1, 3, 2, 3}
	g := G.NewGraph()
	xd := graphop.NewDense(tensor.Float32, rows, c)
	x := G.NodeFromAny(g, xd, G.WithName("x"))
	a, err := CausalAttention(x, 2, 3, heads)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := CrossEntropy(a, &targets, Xent{Sum: true, Smoothing: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(loss, x); err != nil {
		t.Fatal(err)
	}
	e, err := NewExecutor(g)
	if err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 3; run++ {
		xs := xd.Data().([]float32)
		for i := range xs {
			xs[i] = float32(r.NormFloat64())
		}
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		av := e.Value(a).(*tensor.Dense).Data().([]float32)
		dA := e.Value(a.Deriv()).(*tensor.Dense).Data().([]float32)
		want := make([]float32, len(av))
		xentBwd(av, want, targets, c/3, 1, 0.1, nil)
		for i := range want {
			if math.Float32bits(dA[i]) != math.Float32bits(want[i]) {
				t.Fatalf("run %d: ∂loss/∂a[%d] = %v, want %v", run, i, dA[i], want[i])
			}
		}
		o := attnOf(t, a)
		dX := make([]float32, len(xs))
		o.keptFor = nil
		attnBack(o, xs, dA, dX)
		gotX := e.Value(x.Deriv()).(*tensor.Dense).Data().([]float32)
		for i := range dX {
			if math.Float32bits(gotX[i]) != math.Float32bits(dX[i]) {
				t.Fatalf("run %d: ∂loss/∂x[%d] = %v, want %v", run, i, gotX[i], dX[i])
			}
		}
	}
}

// attnOf is the state of attention node n.
func attnOf(t *testing.T, n *G.Node) *attn {
	t.Helper()
	d, ok := graphop.Of(n)
	if !ok {
		t.Fatalf("%v is not an op's node", n)
	}
	o, ok := d.State.(*attn)
	if !ok {
		t.Fatalf("%v: state %T", n, d.State)
	}
	return o
}
