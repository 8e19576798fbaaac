package nn

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/normtop/normtop/nn/nntest"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestGradResNetOps: finite-difference checks of the ops the resnet adds
// (padded and strided convolutions, the row layout and back, the option-A
// shortcut) and of gorgonia's Add on images, which the residual sum uses.
func TestGradResNetOps(t *testing.T) {
	conv := func(stride, pad int) func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
		return func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			return Conv2DPadded(in[0], in[1], stride, pad, false)
		}
	}
	cases := []struct {
		name   string
		shapes [][]int
		f      func(g *G.ExprGraph, in []*G.Node) (*G.Node, error)
	}{
		{"Conv2D/pad 1", [][]int{{2, 2, 5, 4}, {3, 2, 3, 3}}, conv(1, 1)},
		{"Conv2D/pad 1 stride 2, odd size", [][]int{{2, 2, 5, 7}, {3, 2, 3, 3}}, conv(2, 1)},
		{"Conv2D/stride 2 unpadded", [][]int{{1, 2, 6, 5}, {2, 2, 3, 2}}, conv(2, 0)},
		{"Conv2D/pad 2 stride 3, filter wider than the image", [][]int{{1, 1, 4, 2}, {2, 1, 3, 4}}, conv(3, 2)},
		{"ToRows", [][]int{{2, 3, 2, 4}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return ToRows(in[0]) }},
		{"FromRows", [][]int{{2 * 2 * 4, 3}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return FromRows(in[0], 2, 3, 2, 4) }},
		{"Shortcut/stride 2, channels padded", [][]int{{2, 2, 5, 4}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return Shortcut(in[0], 3, 2) }},
		{"Shortcut/identity", [][]int{{1, 2, 3, 3}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return Shortcut(in[0], 2, 1) }},
		{"Add/images", [][]int{{2, 3, 2, 2}, {2, 3, 2, 2}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return G.Add(in[0], in[1]) }},
		// a residual block's wiring: x reaches the sum twice, through the
		// convolution and the shortcut, so the gradients must add up
		{"Conv→ToRows→FromRows→Add(shortcut)→ToRows→MeanPool", [][]int{{2, 2, 5, 4}, {3, 2, 3, 3}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			y, err := Conv2DPadded(in[0], in[1], 2, 1, false)
			if err != nil {
				return nil, err
			}
			if y, err = ToRows(y); err != nil {
				return nil, err
			}
			if y, err = FromRows(y, 2, 3, 3, 2); err != nil {
				return nil, err
			}
			sc, err := Shortcut(in[0], 3, 2)
			if err != nil {
				return nil, err
			}
			if y, err = G.Add(y, sc); err != nil {
				return nil, err
			}
			if y, err = ToRows(y); err != nil {
				return nil, err
			}
			return MeanPool(y, 2, 6, nil)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { nntest.GradCheck(t, c.shapes, nntest.Normal, c.f) })
	}
}

// runOne evaluates f on one float64 input and returns a copy of its
// output values.
func runOne(t *testing.T, x *tensor.Dense, f func(*G.Node) (*G.Node, error)) []float64 {
	t.Helper()
	out := runForward(t, []*tensor.Dense{x}, func(in []*G.Node) (*G.Node, error) { return f(in[0]) })
	return append([]float64(nil), out.Data().([]float64)...)
}

// TestConv2DPaddedMatchesDirect: padded convolutions at strides 1 and 2
// against the direct sum (nntest.Conv3x3), on an odd image size.
func TestConv2DPaddedMatchesDirect(t *testing.T) {
	const b, c, h, w, o = 2, 3, 7, 5, 4
	r := rand.New(rand.NewSource(5))
	x := make([]float64, b*c*h*w)
	f := make([]float64, o*c*9)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	for i := range f {
		f[i] = r.NormFloat64()
	}
	for _, stride := range []int{1, 2} {
		want, oh, ow := nntest.Conv3x3(x, b, c, h, w, f, o, stride)
		g := G.NewGraph()
		xn := G.NodeFromAny(g, tensor.New(tensor.WithShape(b, c, h, w), tensor.WithBacking(append([]float64(nil), x...))), G.WithName("x"))
		fn := G.NodeFromAny(g, tensor.New(tensor.WithShape(o, c, 3, 3), tensor.WithBacking(append([]float64(nil), f...))), G.WithName("f"))
		y, err := Conv2DPadded(xn, fn, stride, 1, true)
		if err != nil {
			t.Fatal(err)
		}
		if s := y.Shape(); !s.Eq(tensor.Shape{b, o, oh, ow}) {
			t.Fatalf("stride %d: shape %v, want %v", stride, s, []int{b, o, oh, ow})
		}
		m := G.NewTapeMachine(g)
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
		for i, v := range y.Value().Data().([]float64) {
			if math.Abs(v-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("stride %d: y[%d] = %v, direct %v", stride, i, v, want[i])
			}
		}
		m.Close()
	}
}

// TestToRowsLayout: pixel (b, c, y, x) lands in row (b·H + y)·W + x,
// column c, and FromRows puts it back.
func TestToRowsLayout(t *testing.T) {
	const b, c, h, w = 2, 3, 2, 4
	x := tensor.New(tensor.WithShape(b, c, h, w), tensor.Of(tensor.Float64))
	for i, d := 0, x.Float64s(); i < len(d); i++ {
		d[i] = float64(i)
	}
	rows := runOne(t, x.Clone().(*tensor.Dense), ToRows)
	for n := 0; n < b; n++ {
		for ch := 0; ch < c; ch++ {
			for y := 0; y < h; y++ {
				for xx := 0; xx < w; xx++ {
					want := float64(((n*c+ch)*h+y)*w + xx)
					if got := rows[((n*h+y)*w+xx)*c+ch]; got != want {
						t.Fatalf("row %d col %d = %v, want %v", (n*h+y)*w+xx, ch, got, want)
					}
				}
			}
		}
	}
	back := runOne(t, tensor.New(tensor.WithShape(b*h*w, c), tensor.WithBacking(rows)),
		func(x *G.Node) (*G.Node, error) { return FromRows(x, b, c, h, w) })
	for i, v := range back {
		if v != float64(i) {
			t.Fatalf("FromRows(ToRows(x))[%d] = %v, want %d", i, v, i)
		}
	}
}

// TestShortcutValues: the shortcut keeps every second pixel of each input
// channel and zero-fills the added channels.
func TestShortcutValues(t *testing.T) {
	x := tensor.New(tensor.WithShape(1, 1, 3, 3), tensor.WithBacking([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9}))
	got := runOne(t, x, func(x *G.Node) (*G.Node, error) { return Shortcut(x, 2, 2) })
	want := []float64{1, 3, 7, 9, 0, 0, 0, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Shortcut = %v, want %v", got, want)
		}
	}
}

// TestResNetOpsRefuseBadShapes: each op says what it wants instead of
// building a node of the wrong shape.
func TestResNetOpsRefuseBadShapes(t *testing.T) {
	g := G.NewGraph()
	node := func(shape ...int) *G.Node {
		return G.NodeFromAny(g, tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float64)))
	}
	img, f3 := node(2, 3, 4, 4), node(5, 3, 3, 3)
	for _, c := range []struct {
		name string
		f    func() (*G.Node, error)
		want string
	}{
		{"channels differ", func() (*G.Node, error) { return Conv2DPadded(img, node(5, 2, 3, 3), 1, 1, false) }, "do not match"},
		{"filter larger than the padded image", func() (*G.Node, error) { return Conv2DPadded(node(1, 3, 2, 2), f3, 1, 0, false) }, "do not match"},
		{"stride 0", func() (*G.Node, error) { return Conv2DPadded(img, f3, 0, 1, false) }, "stride 0"},
		{"pad as large as the filter", func() (*G.Node, error) { return Conv2DPadded(img, f3, 1, 3, false) }, "pad 3"},
		{"negative pad", func() (*G.Node, error) { return Conv2DPadded(img, f3, 1, -1, false) }, "pad -1"},
		{"ToRows of a matrix", func() (*G.Node, error) { return ToRows(node(4, 3)) }, "want [B, C, H, W]"},
		{"FromRows of the wrong row count", func() (*G.Node, error) { return FromRows(node(31, 3), 2, 3, 4, 4) }, "want [32, 3]"},
		{"Shortcut to fewer channels", func() (*G.Node, error) { return Shortcut(img, 2, 2) }, "C ≤ 2"},
		{"Shortcut stride 0", func() (*G.Node, error) { return Shortcut(img, 3, 0) }, "stride 0"},
	} {
		if _, err := c.f(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
