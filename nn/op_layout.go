package nn

import (
	"fmt"

	"github.com/normtop/normtop/internal/graphop"
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
	return images{b: s[0], c: s[1], h: s[2], w: s[3]}.relayout(x, true, "ToRows")
}

// FromRows is ToRows' inverse: rows [B·H·W, C] back to images [B, C, H, W].
func FromRows(x *G.Node, b, c, h, w int) (*G.Node, error) {
	if s := x.Shape(); s.Dims() != 2 || s[0] != b*h*w || s[1] != c {
		return nil, fmt.Errorf("FromRows: input shape %v, want [%d, %d] (B·H·W, C)", s, b*h*w, c)
	}
	return images{b: b, c: c, h: h, w: w}.relayout(x, false, "FromRows")
}

// images is the extent of a batch of images, in either layout.
type images struct{ b, c, h, w int }

// relayout moves x to rows (toRows) or to NCHW; each direction's gradient
// is the other direction applied to the upstream gradient.
func (m images) relayout(x *G.Node, toRows bool, kind string) (*G.Node, error) {
	out := tensor.Shape{m.b, m.c, m.h, m.w}
	if toRows {
		out = tensor.Shape{m.b * m.h * m.w, m.c}
	}
	grad := func(_ G.Nodes, g *G.Node) (G.Nodes, error) { return graphop.One(m.relayout(g, !toRows, kind+"Grad")) }
	return graphop.Op{Kind: kind, Out: out, Grad: grad,
		F32: transposeImages[float32](m, toRows), F64: transposeImages[float64](m, toRows)}.Apply(x)
}

// transposeImages copies between NCHW (per image a [C, P] block, P = H·W
// pixels) and rows (per image a [P, C] block): a transpose per image.
func transposeImages[T Float](m images, toRows bool) graphop.Kernel[T] {
	b, c, p := m.b, m.c, m.h*m.w
	return func(out []T, in [][]T) error {
		x := in[0]
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
		return nil
	}
}
