package nn

import (
	"math"
	"math/rand"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestConv2DMatchesGorgonia: Conv2D's output and both gradients agree with
// gorgonia's Conv2d (which it replaced in the cnn) to float64 rounding, on
// shapes with several channels, non-square filters and a batch.
func TestConv2DMatchesGorgonia(t *testing.T) {
	for _, s := range []struct{ x, w []int }{
		{[]int{2, 3, 7, 6}, []int{4, 3, 3, 2}},
		{[]int{3, 1, 28, 28}, []int{20, 1, 5, 5}},
		{[]int{1, 2, 5, 5}, []int{1, 2, 5, 5}},
	} {
		r := rand.New(rand.NewSource(3))
		xv, wv := randNormal(r, s.x...), randNormal(r, s.w...)
		run := func(conv func(x, w *G.Node) (*G.Node, error)) (y, dx, dw []float64) {
			return convSquaredLoss(t, xv, wv, conv)
		}
		gy, gdx, gdw := run(func(x, w *G.Node) (*G.Node, error) {
			return G.Conv2d(x, w, tensor.Shape{s.w[2], s.w[3]}, []int{0, 0}, []int{1, 1}, []int{1, 1})
		})
		y, dx, dw := run(func(x, w *G.Node) (*G.Node, error) { return Conv2D(x, w, false) })
		for _, c := range []struct {
			name      string
			got, want []float64
		}{{"y", y, gy}, {"dx", dx, gdx}, {"dw", dw, gdw}} {
			if len(c.got) != len(c.want) {
				t.Fatalf("%v*%v %s: %d values, gorgonia %d", s.x, s.w, c.name, len(c.got), len(c.want))
			}
			for i := range c.got {
				if math.Abs(c.got[i]-c.want[i]) > 1e-10*(1+math.Abs(c.want[i])) {
					t.Fatalf("%v*%v %s[%d] = %v, gorgonia %v", s.x, s.w, c.name, i, c.got[i], c.want[i])
				}
			}
		}
	}
}

// randNormal is a float64 tensor of shape filled from r's normal draws.
func randNormal(r *rand.Rand, shape ...int) *tensor.Dense {
	d := tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float64))
	for i, v := 0, d.Float64s(); i < len(v); i++ {
		v[i] = r.NormFloat64()
	}
	return d
}

// convSquaredLoss runs conv over copies of xv and wv on gorgonia's tape
// machine and returns its output and the gradients of Σ out² with respect
// to x and w: what two convolutions must agree on, value and gradient.
func convSquaredLoss(t *testing.T, xv, wv *tensor.Dense, conv func(x, w *G.Node) (*G.Node, error)) (y, dx, dw []float64) {
	t.Helper()
	g := G.NewGraph()
	x := G.NodeFromAny(g, xv.Clone().(*tensor.Dense), G.WithName("x"))
	w := G.NodeFromAny(g, wv.Clone().(*tensor.Dense), G.WithName("w"))
	out, err := conv(x, w)
	if err != nil {
		t.Fatal(err)
	}
	var yv G.Value
	G.Read(out, &yv)
	sq, err := G.Square(out)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := G.Sum(sq)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := G.Grad(loss, x, w)
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return floats(yv), floats(gs[0].Value()), floats(gs[1].Value())
}
