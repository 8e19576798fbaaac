package nn

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ToRows lays images x [B, C, H, W] (the convolutions' NCHW) out as rows
// [B·H·W, C] (NHWC: row (b·H + h)·W + w holds that pixel's C channels), the
// layout of an image norm site: the per-feature norms then take their
// statistics per channel over B·H·W rows with the kernels every other site
// uses, and every sample owns H·W consecutive rows (site.SampleRows).
func ToRows(x *G.Node) (*G.Node, error) {
	s := x.Shape()
	if s.Dims() != 4 {
		return nil, fmt.Errorf("ToRows: input shape %v, want [B, C, H, W]", s)
	}
	return G.ApplyOp(&layoutOp{OpBase: NewOpBase("ToRows"), toRows: true, b: s[0], c: s[1], h: s[2], w: s[3]}, x)
}

// FromRows is ToRows' inverse: rows [B·H·W, C] back to images [B, C, H, W].
func FromRows(x *G.Node, b, c, h, w int) (*G.Node, error) {
	if s := x.Shape(); s.Dims() != 2 || s[0] != b*h*w || s[1] != c {
		return nil, fmt.Errorf("FromRows: input shape %v, want [%d, %d] (B·H·W, C)", s, b*h*w, c)
	}
	return G.ApplyOp(&layoutOp{OpBase: NewOpBase("FromRows"), b: b, c: c, h: h, w: w}, x)
}

// layoutOp moves values between NCHW and [B·H·W, C]; each direction's
// gradient is the other direction applied to the upstream gradient.
type layoutOp struct {
	OpBase
	toRows     bool
	b, c, h, w int
}

func (o *layoutOp) Arity() int { return 1 }
func (o *layoutOp) Type() hm.Type {
	if o.toRows {
		return hm.NewFnType(TensorType(4), TensorType(2))
	}
	return hm.NewFnType(TensorType(2), TensorType(4))
}
func (o *layoutOp) outShape() tensor.Shape {
	if o.toRows {
		return tensor.Shape{o.b * o.h * o.w, o.c}
	}
	return tensor.Shape{o.b, o.c, o.h, o.w}
}
func (o *layoutOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return o.outShape(), nil }
func (o *layoutOp) Do(in ...G.Value) (G.Value, error)              { return o.Reuse(o.do, in) }

func (o *layoutOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	x, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	if x.Shape().TotalSize() != o.b*o.c*o.h*o.w {
		return nil, fmt.Errorf("%s: input shape %v, want %d values", o.name, x.Shape(), o.b*o.c*o.h*o.w)
	}
	out := OutBufFull(pre, in, x.Dtype(), o.outShape()...)
	switch x.Dtype() {
	case tensor.Float32:
		relayout(x.Float32s(), out.Float32s(), o.toRows, o.b, o.c, o.h*o.w)
	case tensor.Float64:
		relayout(x.Float64s(), out.Float64s(), o.toRows, o.b, o.c, o.h*o.w)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	return out, nil
}

// relayout copies between NCHW (per image a [C, P] block, P = H·W pixels)
// and rows (per image a [P, C] block): a transpose per image.
func relayout[T Float](x, out []T, toRows bool, b, c, p int) {
	for i := 0; i < b; i++ {
		src, dst := x[i*c*p:(i+1)*c*p], out[i*c*p:(i+1)*c*p]
		for ch := 0; ch < c; ch++ {
			plane := ch * p
			if toRows {
				for px, v := range src[plane : plane+p] {
					dst[px*c+ch] = v
				}
			} else {
				for px := range dst[plane : plane+p] {
					dst[plane+px] = src[px*c+ch]
				}
			}
		}
	}
}

func (o *layoutOp) DiffWRT(int) []bool { return []bool{true} }
func (o *layoutOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	inv := &layoutOp{OpBase: NewOpBase(o.inverseName()), toRows: !o.toRows, b: o.b, c: o.c, h: o.h, w: o.w}
	dx, err := G.ApplyOp(inv, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

func (o *layoutOp) inverseName() string {
	if o.toRows {
		return "ToRowsGrad"
	}
	return "FromRowsGrad"
}
