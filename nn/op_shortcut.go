package nn

import (
	"fmt"

	"github.com/chewxy/hm"
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
	return G.ApplyOp(&shortcutOp{OpBase: NewOpBase("Shortcut"), g: g}, x)
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
	return G.ApplyOp(&shortcutOp{OpBase: NewOpBase("ShortcutRows"), g: g}, x)
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

func (g shortcutGeom) dims() int { return len(g.inShape()) }

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

type shortcutOp struct {
	OpBase
	g shortcutGeom
}

func (o *shortcutOp) Arity() int { return 1 }
func (o *shortcutOp) Type() hm.Type {
	return hm.NewFnType(TensorType(o.g.dims()), TensorType(o.g.dims()))
}
func (o *shortcutOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return o.g.outShape(), nil }
func (o *shortcutOp) Do(in ...G.Value) (G.Value, error)              { return o.Reuse(o.do, in) }

func (o *shortcutOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	x, err := oneOf(o.OpBase, in, o.g.b*o.g.c*o.g.h*o.g.w)
	if err != nil {
		return nil, err
	}
	out := outBuf(pre, in, x.Dtype(), o.g.outShape()...) // zeroed: the padded channels
	switch x.Dtype() {
	case tensor.Float32:
		xs, os := x.Float32s(), out.Float32s()
		o.g.each(func(i, j int) { os[j] = xs[i] })
	case tensor.Float64:
		xs, os := x.Float64s(), out.Float64s()
		o.g.each(func(i, j int) { os[j] = xs[i] })
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	return out, nil
}

func (o *shortcutOp) DiffWRT(int) []bool { return []bool{true} }
func (o *shortcutOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(&shortcutGradOp{OpBase: NewOpBase("ShortcutGrad"), g: o.g}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

// shortcutGradOp puts the upstream gradient back on the sampled pixels;
// the skipped pixels and the padded channels get none.
type shortcutGradOp struct {
	OpBase
	g shortcutGeom
}

func (o *shortcutGradOp) Arity() int { return 1 }
func (o *shortcutGradOp) Type() hm.Type {
	return hm.NewFnType(TensorType(o.g.dims()), TensorType(o.g.dims()))
}
func (o *shortcutGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return o.g.inShape(), nil }
func (o *shortcutGradOp) Do(in ...G.Value) (G.Value, error)              { return o.Reuse(o.do, in) }

func (o *shortcutGradOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	dy, err := oneOf(o.OpBase, in, o.g.b*o.g.oc*o.g.oh*o.g.ow)
	if err != nil {
		return nil, err
	}
	out := outBuf(pre, in, dy.Dtype(), o.g.inShape()...) // zeroed: skipped pixels
	switch dy.Dtype() {
	case tensor.Float32:
		gs, ds := dy.Float32s(), out.Float32s()
		o.g.each(func(i, j int) { ds[i] = gs[j] })
	case tensor.Float64:
		gs, ds := dy.Float64s(), out.Float64s()
		o.g.each(func(i, j int) { ds[i] = gs[j] })
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, dy.Dtype())
	}
	return out, nil
}

// oneOf checks an op has one dense input of n values and returns it.
func oneOf(o OpBase, in []G.Value, n int) (*tensor.Dense, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	x, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	if x.Shape().TotalSize() != n {
		return nil, fmt.Errorf("%s: input shape %v, want %d values", o.name, x.Shape(), n)
	}
	return x, nil
}
