package nn

import (
	"fmt"

	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Shortcut is a residual block's parameter-free shortcut where the block
// changes shape (He et al. 2016, option A, ResNet-20's): images x [B, C,
// H, W] sampled every stride-th pixel in both directions and padded with
// zero channels up to outC, giving [B, outC, (H−1)/stride+1,
// (W−1)/stride+1] — the shape of a padded 3×3 convolution of that stride.
// Channel c < C of the output is channel c of the input.
func Shortcut(x *G.Node, outC, stride int) (*G.Node, error) {
	s := x.Shape()
	if s.Dims() != 4 || outC < s[1] || stride < 1 {
		return nil, fmt.Errorf("Shortcut: input %v to %d channels, stride %d: want [B, C, H, W], C ≤ %d, stride ≥ 1", s, outC, stride, outC)
	}
	g := shortcutGeom{b: s[0], c: s[1], h: s[2], w: s[3], oc: outC, s: stride}
	g.oh, g.ow = (g.h-1)/stride+1, (g.w-1)/stride+1
	return g.apply(x, "Shortcut")
}

// ShortcutRows is Shortcut on images in the row layout of ConvRows: x is
// [B·H·W, C], the output [B·OH·OW, outC] with OH, OW as for Shortcut;
// channel c < C of an output row is channel c of its sampled pixel.
func ShortcutRows(x *G.Node, b, h, w, outC, stride int) (*G.Node, error) {
	s := x.Shape()
	if s.Dims() != 2 || s[0] != b*h*w || outC < s[1] || stride < 1 {
		return nil, fmt.Errorf("ShortcutRows: input %v of %d images %d×%d to %d channels, stride %d: want [B·H·W, C], C ≤ %d, stride ≥ 1",
			s, b, h, w, outC, stride, outC)
	}
	g := shortcutGeom{b: b, c: s[1], h: h, w: w, oc: outC, s: stride, rows: true}
	g.oh, g.ow = (g.h-1)/stride+1, (g.w-1)/stride+1
	return g.apply(x, "ShortcutRows")
}

// shortcutGeom is a shortcut's sizes; rows says the images are in the row
// layout [B·H·W, C] rather than [B, C, H, W].
type shortcutGeom struct {
	b, c, h, w, oc, oh, ow, s int
	rows                      bool
}

// inShape and outShape are the input's and the output's shapes.
func (g shortcutGeom) inShape() tensor.Shape {
	if g.rows {
		return tensor.Shape{g.b * g.h * g.w, g.c}
	}
	return tensor.Shape{g.b, g.c, g.h, g.w}
}

func (g shortcutGeom) outShape() tensor.Shape {
	if g.rows {
		return tensor.Shape{g.b * g.oh * g.ow, g.oc}
	}
	return tensor.Shape{g.b, g.oc, g.oh, g.ow}
}

// each calls f(in, out) for every input value that reaches the output,
// with its offsets in the input and in the output.
func (g shortcutGeom) each(f func(in, out int)) {
	if g.rows {
		for b := 0; b < g.b; b++ {
			for y := 0; y < g.oh; y++ {
				for x := 0; x < g.ow; x++ {
					in, out := ((b*g.h+y*g.s)*g.w+x*g.s)*g.c, ((b*g.oh+y)*g.ow+x)*g.oc
					for c := 0; c < g.c; c++ {
						f(in+c, out+c)
					}
				}
			}
		}
		return
	}
	for b := 0; b < g.b; b++ {
		for c := 0; c < g.c; c++ {
			inPlane, outPlane := (b*g.c+c)*g.h*g.w, (b*g.oc+c)*g.oh*g.ow
			for y := 0; y < g.oh; y++ {
				for x := 0; x < g.ow; x++ {
					f(inPlane+y*g.s*g.w+x*g.s, outPlane+y*g.ow+x)
				}
			}
		}
	}
}

// apply adds the shortcut of x; its gradient puts the upstream gradient
// back on the sampled pixels, and the skipped pixels and the padded
// channels get none (both outputs start at zero).
func (g shortcutGeom) apply(x *G.Node, kind string) (*G.Node, error) {
	grad := func(_ G.Nodes, dy *G.Node) (G.Nodes, error) {
		return graphop.One(graphop.Op{Kind: kind + "Grad", Out: g.inShape(), Accumulates: true,
			F32: shortcutBack[float32](g), F64: shortcutBack[float64](g)}.Apply(dy))
	}
	return graphop.Op{Kind: kind, Out: g.outShape(), Accumulates: true, Grad: grad,
		F32: shortcutFwd[float32](g), F64: shortcutFwd[float64](g)}.Apply(x)
}

func shortcutFwd[T Float](g shortcutGeom) graphop.Kernel[T] {
	return func(out []T, in [][]T) error {
		xs := in[0]
		g.each(func(i, j int) { out[j] = xs[i] })
		return nil
	}
}

func shortcutBack[T Float](g shortcutGeom) graphop.Kernel[T] {
	return func(dx []T, in [][]T) error {
		dy := in[0]
		g.each(func(i, j int) { dx[i] = dy[j] })
		return nil
	}
}
