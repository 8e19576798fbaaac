package nn

import (
	"math"
	"math/rand"
	"testing"
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
