package nn

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/normtop/normtop/gemm"
	"github.com/normtop/normtop/nn/nntest"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// convRowsCase is one convolution in both layouts: x [B, C, H, W] in
// images, filters [O, C, kh, kw].
type convRowsCase struct {
	name                  string
	b, c, h, w, o, kh, kw int
	stride, pad           int
}

var convRowsCases = []convRowsCase{
	{"pad 1", 2, 2, 5, 4, 3, 3, 3, 1, 1},
	{"pad 1 stride 2, odd size", 2, 2, 5, 7, 3, 3, 3, 2, 1},
	{"stride 2 unpadded, 3×2 filters", 1, 2, 6, 5, 2, 3, 2, 2, 0},
	{"pad 2 stride 3, filter wider than the image", 1, 1, 4, 2, 2, 3, 4, 3, 2},
	{"one channel, as the first layer", 2, 1, 6, 6, 4, 3, 3, 1, 1},
	// stride 1 runs in place from a padded copy (op_convrows_implicit.go):
	// borders other than the filter's half, and filters that are not square
	{"stride 1 unpadded, 3×2 filters", 2, 2, 5, 4, 3, 3, 2, 1, 0},
	{"stride 1 pad 2, 3×4 filters", 1, 2, 3, 4, 2, 3, 4, 1, 2},
}

// TestGradConvRows: finite-difference checks of ConvRows (both inputs) and
// ShortcutRows, and of a residual block's wiring in the row layout, where
// x reaches the sum through the convolution and the shortcut.
func TestGradConvRows(t *testing.T) {
	for _, c := range convRowsCases {
		for _, anySize := range []bool{false, true} {
			name := "ConvRows/" + c.name
			if anySize {
				name += "/implicit at any size"
			}
			t.Run(name, func(t *testing.T) {
				withImplicitAnySize(t, anySize)
				nntest.GradCheck(t, [][]int{{c.b * c.h * c.w, c.c}, {c.o, c.c, c.kh, c.kw}}, nntest.Normal,
					func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
						return ConvRows(in[0], in[1], c.b, c.h, c.w, c.stride, c.pad, false)
					})
			})
		}
	}
	cases := []struct {
		name   string
		shapes [][]int
		f      func(g *G.ExprGraph, in []*G.Node) (*G.Node, error)
	}{
		{"ShortcutRows/stride 2, channels padded", [][]int{{2 * 5 * 4, 2}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			return ShortcutRows(in[0], 2, 5, 4, 3, 2)
		}},
		{"ShortcutRows/identity", [][]int{{3 * 3, 2}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			return ShortcutRows(in[0], 1, 3, 3, 2, 1)
		}},
		{"ConvRows→Add(ShortcutRows)→MeanPool", [][]int{{2 * 5 * 4, 2}, {3, 2, 3, 3}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			y, err := ConvRows(in[0], in[1], 2, 5, 4, 2, 1, false)
			if err != nil {
				return nil, err
			}
			sc, err := ShortcutRows(in[0], 2, 5, 4, 3, 2)
			if err != nil {
				return nil, err
			}
			if y, err = G.Add(y, sc); err != nil {
				return nil, err
			}
			return MeanPool(y, 2, 6, nil)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { nntest.GradCheck(t, c.shapes, nntest.Normal, c.f) })
	}
}

// withImplicitAnySize sets implicitAnySize for the rest of the test.
func withImplicitAnySize(t *testing.T, on bool) {
	old := implicitAnySize
	implicitAnySize = on
	t.Cleanup(func() { implicitAnySize = old })
}

// TestConvRowsMatchesConv2DPadded: ConvRows on rows gives Conv2DPadded's
// output in the row layout, and the same gradients (the images' in the row
// layout), to float64 rounding: on the cases above and on a batch of
// 28×28 images large enough to take several blocks of patch rows.
func TestConvRowsMatchesConv2DPadded(t *testing.T) {
	cases := append(convRowsCases[:len(convRowsCases):len(convRowsCases)],
		convRowsCase{"several blocks", 3, 2, 28, 28, 5, 3, 3, 1, 1},
		convRowsCase{"several blocks, stride 2", 4, 3, 28, 28, 4, 3, 3, 2, 1})
	for _, tc := range cases {
		for _, anySize := range []bool{false, true} {
			c, name := tc, tc.name
			if anySize {
				name += "/implicit at any size"
			}
			t.Run(name, func(t *testing.T) {
				withImplicitAnySize(t, anySize)
				convRowsMatchesConv2DPadded(t, c)
			})
		}
	}
}

func convRowsMatchesConv2DPadded(t *testing.T, c convRowsCase) {
	r := rand.New(rand.NewSource(7))
	xv, wv := randNormal(r, c.b*c.h*c.w, c.c), randNormal(r, c.o, c.c, c.kh, c.kw)
	run := func(conv func(x, w *G.Node) (*G.Node, error)) (y, dx, dw []float64) {
		return convSquaredLoss(t, xv, wv, conv)
	}
	wy, wdx, wdw := run(func(x, w *G.Node) (*G.Node, error) {
		img, err := FromRows(x, c.b, c.c, c.h, c.w)
		if err != nil {
			return nil, err
		}
		y, err := Conv2DPadded(img, w, c.stride, c.pad, false)
		if err != nil {
			return nil, err
		}
		return ToRows(y)
	})
	y, dx, dw := run(func(x, w *G.Node) (*G.Node, error) {
		return ConvRows(x, w, c.b, c.h, c.w, c.stride, c.pad, false)
	})
	for _, v := range []struct {
		name      string
		got, want []float64
	}{{"y", y, wy}, {"dx", dx, wdx}, {"dw", dw, wdw}} {
		if len(v.got) != len(v.want) {
			t.Fatalf("%s: %d values, Conv2DPadded %d", v.name, len(v.got), len(v.want))
		}
		for i := range v.got {
			if math.Abs(v.got[i]-v.want[i]) > 1e-10*(1+math.Abs(v.want[i])) {
				t.Fatalf("%s[%d] = %v, Conv2DPadded %v", v.name, i, v.got[i], v.want[i])
			}
		}
	}
}

// TestShortcutRowsMatchesShortcut: ShortcutRows is Shortcut in the row
// layout.
func TestShortcutRowsMatchesShortcut(t *testing.T) {
	const b, c, h, w, oc, s = 2, 3, 5, 4, 5, 2
	x := tensor.New(tensor.WithShape(b*h*w, c), tensor.Of(tensor.Float64))
	for i, d := 0, x.Float64s(); i < len(d); i++ {
		d[i] = float64(i + 1)
	}
	got := runOne(t, x.Clone().(*tensor.Dense), func(x *G.Node) (*G.Node, error) { return ShortcutRows(x, b, h, w, oc, s) })
	want := runOne(t, x.Clone().(*tensor.Dense), func(x *G.Node) (*G.Node, error) {
		img, err := FromRows(x, b, c, h, w)
		if err != nil {
			return nil, err
		}
		y, err := Shortcut(img, oc, s)
		if err != nil {
			return nil, err
		}
		return ToRows(y)
	})
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestConvRowsRefusesMisfits: shapes that do not fit are one error each.
func TestConvRowsRefusesMisfits(t *testing.T) {
	g := G.NewGraph()
	x := G.NewMatrix(g, tensor.Float64, G.WithShape(2*5*5, 3), G.WithName("x"))
	w := G.NewTensor(g, tensor.Float64, 4, G.WithShape(4, 3, 3, 3), G.WithName("w"))
	for _, c := range []struct {
		name                 string
		b, h, wd, stride, pd int
		w                    *G.Node
	}{
		{"rows are not B·H·W", 2, 5, 4, 1, 1, w},
		{"channels differ", 2, 5, 5, 1, 1, G.NewTensor(g, tensor.Float64, 4, G.WithShape(4, 2, 3, 3), G.WithName("w2"))},
		{"stride 0", 2, 5, 5, 0, 1, w},
		{"pad as large as the filter", 2, 5, 5, 1, 3, w},
	} {
		if _, err := ConvRows(x, c.w, c.b, c.h, c.wd, c.stride, c.pd, false); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if _, err := ShortcutRows(x, 2, 5, 5, 2, 2); err == nil {
		t.Error("ShortcutRows to fewer channels: no error")
	}
}

// TestConvImplicitMatchesPatchBlocks: in float32, the stride-1 path (read
// in place from padded copies) gives the patch-block path's output bit for
// bit and its gradients to float32 rounding, and again on a second call
// with the same scratch, whose padded copies keep their zero border and
// whose virtual rows hold the first call's values.
func TestConvImplicitMatchesPatchBlocks(t *testing.T) {
	if !gemm.CanOverlap() {
		t.Skip("no GEMM kernels in this build")
	}
	for _, c := range append(convRowsCases, convRowsCase{"28×28, 8 to 8 channels", 2, 8, 28, 28, 8, 3, 3, 1, 1}) {
		if c.stride != 1 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			g := convGeom{b: c.b, c: c.c, h: c.h, w: c.w, o: c.o, kh: c.kh, kw: c.kw, s: 1, pad: c.pad}
			g.oh, g.ow = g.h+2*g.pad-g.kh+1, g.w+2*g.pad-g.kw+1
			r := rand.New(rand.NewSource(3))
			rnd := func(n int) []float32 {
				v := make([]float32, n)
				for i := range v {
					v[i] = float32(r.NormFloat64())
				}
				return v
			}
			fp, bp := g.fwdPad(), g.bwdPad()
			wp, xp := make([]float32, g.k()*g.o), make([]float32, fp.bufLen())
			dyv := make([]float32, padded{b: g.b, hp: fp.hp, wp: fp.wp, c: g.o}.len())
			dyp := make([]float32, bp.bufLen())
			for call := 0; call < 2; call++ {
				x, w, dy := rnd(g.b*g.h*g.w*g.c), rnd(g.o*g.k()), rnd(g.outRows()*g.o)
				y, dx, dw := make([]float32, g.outRows()*g.o), rnd(len(x)), rnd(len(w)) // dx, dw: stale values
				convImplicitFwd(g, x, w, y, wp, xp, new(any))
				convImplicitGradX(g, w, dy, dx, wp, dyp, new(any))
				convImplicitGradW(g, x, dy, dw, wp, xp, dyv)
				cols := make([]float32, g.blockRows()*g.k())
				wy, wdx, wdw := make([]float32, len(y)), make([]float32, len(x)), make([]float32, len(w))
				convRowsFwd(g, x, w, wy, make([]float32, len(wp)), cols)
				convRowsGradX(g, w, dy, wdx, make([]float32, len(wp)), cols)
				convRowsGradW(g, x, dy, wdw, make([]float32, len(wp)), cols)
				// the forward sums each output in the patch blocks' order
				// (gemm.Windows, or patch blocks over the padded copy)
				for i := range wy {
					if math.Float32bits(y[i]) != math.Float32bits(wy[i]) {
						t.Fatalf("call %d: y[%d] = %v, patch blocks %v (bit-identical)", call, i, y[i], wy[i])
					}
				}
				for _, s := range []struct {
					name      string
					got, want []float32
				}{{"dx", dx, wdx}, {"dw", dw, wdw}} {
					for i := range s.want {
						if d := math.Abs(float64(s.got[i] - s.want[i])); d > 1e-4*(1+math.Abs(float64(s.want[i]))) {
							t.Fatalf("call %d: %s[%d] = %v, patch blocks %v", call, s.name, i, s.got[i], s.want[i])
						}
					}
				}
			}
		})
	}
}

// TestConvStridedWindowsMatchesPatchBlocks: in float32, a strided forward
// by windows over a padded copy gives the patch-block forward's output bit
// for bit, on a second call with the same scratch too: through
// gemm.Windows where it runs (16 channels or fewer), by patch blocks over
// the padded copy elsewhere; and the op takes the windows exactly where
// gemm.Windows runs.
func TestConvStridedWindowsMatchesPatchBlocks(t *testing.T) {
	if !gemm.CanOverlap() {
		t.Skip("no GEMM kernels in this build")
	}
	for _, c := range append(convRowsCases,
		convRowsCase{"28×28, 8 to 16 channels, stride 2", 2, 8, 28, 28, 16, 3, 3, 2, 1},
		convRowsCase{"14×14, 16 to 32 channels, stride 2", 2, 16, 14, 14, 32, 3, 3, 2, 1},
		convRowsCase{"odd 9×11, stride 3, pad 2", 3, 3, 9, 11, 5, 3, 3, 3, 2}) {
		if c.stride == 1 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			g := convGeom{b: c.b, c: c.c, h: c.h, w: c.w, o: c.o, kh: c.kh, kw: c.kw, s: c.stride, pad: c.pad}
			g.oh, g.ow = (g.h+2*g.pad-g.kh)/g.s+1, (g.w+2*g.pad-g.kw)/g.s+1
			if want := gemm.WindowsRuns(g.o, g.k()); stridedWindows[float32](g) != want || stridedWindows[float64](g) {
				t.Fatalf("stridedWindows: float32 %v (gemm.Windows runs: %v), float64 %v", stridedWindows[float32](g), want, stridedWindows[float64](g))
			}
			r := rand.New(rand.NewSource(5))
			wp, xp := make([]float32, g.k()*g.o), make([]float32, g.fwdPad().bufLen())
			for call := 0; call < 2; call++ {
				x, w := make([]float32, g.b*g.h*g.w*g.c), make([]float32, g.o*g.k())
				for i := range x {
					x[i] = float32(r.NormFloat64())
				}
				for i := range w {
					w[i] = float32(r.NormFloat64())
				}
				y, wy := make([]float32, g.outRows()*g.o), make([]float32, g.outRows()*g.o)
				convImplicitFwd(g, x, w, y, wp, xp, new(any))
				convRowsFwd(g, x, w, wy, make([]float32, len(wp)), make([]float32, g.blockRows()*g.k()))
				for i := range wy {
					if math.Float32bits(y[i]) != math.Float32bits(wy[i]) {
						t.Fatalf("call %d: y[%d] = %v, patch blocks %v (bit-identical)", call, i, y[i], wy[i])
					}
				}
			}
		})
	}
}

// windowGradCases are the geometries the filters' gradient by windows is
// checked at: the resnet's shapes (the stride-1 ones in the implicit
// path's blocks, the strided and 7×7 ones in the patch blocks'), odd sizes
// and strides, one input channel, more than 16 output channels.
var windowGradCases = []convRowsCase{
	{"28×28 1→8, as conv1", 2, 1, 28, 28, 8, 3, 3, 1, 1},
	{"28×28 8→8", 2, 8, 28, 28, 8, 3, 3, 1, 1},
	{"28×28 8→16 stride 2", 2, 8, 28, 28, 16, 3, 3, 2, 1},
	{"14×14 16→16", 3, 16, 14, 14, 16, 3, 3, 1, 1},
	{"14×14 16→32 stride 2", 2, 16, 14, 14, 32, 3, 3, 2, 1},
	{"7×7 32→32", 4, 32, 7, 7, 32, 3, 3, 1, 1},
	{"odd 9×11 3→5 stride 3 pad 2", 3, 3, 9, 11, 5, 3, 3, 3, 2},
	{"5×4 2→3 3×2 filters unpadded", 2, 2, 5, 4, 3, 3, 2, 1, 0},
}

// TestConvWindowsGradWMatchesReplacedPath: in float32, the filters'
// gradient by windows (gemm.WindowsTRuns) gives the bits of the path it
// replaces, the implicit one at stride 1 where implicitConv holds (with
// and without implicitAnySize) and the patch blocks elsewhere, on a
// second call with the same scratch too.
func TestConvWindowsGradWMatchesReplacedPath(t *testing.T) {
	if !gemm.HasWindowKernels() {
		if convWindowsGradW(convGeom{}, nil, nil, nil, nil, nil) {
			t.Fatal("ran without the window kernels")
		}
		t.Skip("no AVX-512 window kernels here")
	}
	for _, c := range windowGradCases {
		for _, anySize := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/implicit at any size %v", c.name, anySize), func(t *testing.T) {
				withImplicitAnySize(t, anySize)
				g := convGeom{b: c.b, c: c.c, h: c.h, w: c.w, o: c.o, kh: c.kh, kw: c.kw, s: c.stride, pad: c.pad}
				g.oh, g.ow = (g.h+2*g.pad-g.kh)/g.s+1, (g.w+2*g.pad-g.kw)/g.s+1
				r := rand.New(rand.NewSource(9))
				rnd := func(n int) []float32 {
					v := make([]float32, n)
					for i := range v {
						v[i] = float32(r.NormFloat64())
					}
					return v
				}
				fp := g.fwdPad()
				xp, dwp := make([]float32, fp.bufLen()), make([]float32, g.k()*g.o)
				for call := 0; call < 2; call++ {
					x, dy := rnd(g.b*g.h*g.w*g.c), rnd(g.outRows()*g.o)
					dw, want := rnd(g.o*g.k()), make([]float32, g.o*g.k()) // dw: stale values
					if !convWindowsGradW(g, x, dy, dw, dwp, xp) {
						t.Fatal("declined")
					}
					if g.implicitConv() {
						convImplicitGradW(g, x, dy, want, make([]float32, len(dwp)), make([]float32, fp.bufLen()),
							make([]float32, padded{b: g.b, hp: fp.hp, wp: fp.wp, c: g.o}.len()))
					} else {
						convRowsGradW(g, x, dy, want, make([]float32, len(dwp)), make([]float32, g.blockRows()*g.k()))
					}
					for i := range want {
						if math.Float32bits(dw[i]) != math.Float32bits(want[i]) {
							t.Fatalf("call %d: dw[%d] = %v, the replaced path's %v (bit-identical)", call, i, dw[i], want[i])
						}
					}
				}
			})
		}
	}
}

// TestConvWindowsGradWFiniteDifferences: the filters' gradient by windows
// (float32) is the derivative of Σ conv(x, w)·dy in w, taken by central
// differences of a float64 forward, to float32 rounding.
func TestConvWindowsGradWFiniteDifferences(t *testing.T) {
	if !gemm.HasWindowKernels() {
		t.Skip("no AVX-512 window kernels here")
	}
	for _, c := range windowGradCases {
		t.Run(c.name, func(t *testing.T) {
			g := convGeom{b: 1, c: c.c, h: c.h, w: c.w, o: c.o, kh: c.kh, kw: c.kw, s: c.stride, pad: c.pad}
			g.oh, g.ow = (g.h+2*g.pad-g.kh)/g.s+1, (g.w+2*g.pad-g.kw)/g.s+1
			r := rand.New(rand.NewSource(4))
			x, dy, w := make([]float64, g.h*g.w*g.c), make([]float64, g.outRows()*g.o), make([]float64, g.o*g.k())
			for _, v := range [][]float64{x, dy, w} {
				for i := range v {
					v[i] = float64(float32(r.NormFloat64()))
				}
			}
			loss := func(w []float64) float64 {
				y := make([]float64, g.outRows()*g.o)
				convRowsFwd(g, x, w, y, make([]float64, len(w)), make([]float64, g.blockRows()*g.k()))
				s := 0.0
				for i := range y {
					s += y[i] * dy[i]
				}
				return s
			}
			f32 := func(v []float64) []float32 {
				o := make([]float32, len(v))
				for i := range v {
					o[i] = float32(v[i])
				}
				return o
			}
			dw := make([]float32, len(w))
			if !convWindowsGradW(g, f32(x), f32(dy), dw, make([]float32, g.k()*g.o), make([]float32, g.fwdPad().bufLen())) {
				t.Fatal("declined")
			}
			const h = 1e-3
			for i := 0; i < len(w); i += 1 + len(w)/40 {
				wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
				wp[i] += h
				wm[i] -= h
				fd := (loss(wp) - loss(wm)) / (2 * h)
				if d := math.Abs(float64(dw[i]) - fd); d > 1e-4*(1+math.Abs(fd)) {
					t.Fatalf("dw[%d] = %v, finite differences %v", i, dw[i], fd)
				}
			}
		})
	}
}
