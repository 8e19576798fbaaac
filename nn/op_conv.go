package nn

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Conv2D is a valid (unpadded), stride-1 convolution of images x [B, C, H,
// W] with filters w [O, C, kh, kw], giving [B, O, H−kh+1, W−kw+1]: per
// image, the filters as an [O, C·kh·kw] matrix times the image's patches
// laid out as columns (im2col), one product through package gemm. It
// replaces gorgonia's Conv2d, whose im2col, reshape, transpose and matrix
// product nodes allocated ~290 times a step. xIsData says x is the
// model's input, whose gradient is not built.
func Conv2D(x, w *G.Node, xIsData bool) (*G.Node, error) {
	return Conv2DPadded(x, w, 1, 0, xIsData)
}

// Conv2DPadded is Conv2D with a stride and zero padding of pad pixels on
// every side (a ResNet's 3×3 convolutions: pad 1, stride 1 or 2), giving
// [B, O, (H+2·pad−kh)/stride+1, (W+2·pad−kw)/stride+1].
func Conv2DPadded(x, w *G.Node, stride, pad int, xIsData bool) (*G.Node, error) {
	xs, ws := x.Shape(), w.Shape()
	if xs.Dims() != 4 || ws.Dims() != 4 || xs[1] != ws[1] || ws[2] > xs[2]+2*pad || ws[3] > xs[3]+2*pad {
		return nil, fmt.Errorf("Conv2D: images %v and filters %v do not match (pad %d)", xs, ws, pad)
	}
	if stride < 1 || pad < 0 || pad >= ws[2] || pad >= ws[3] {
		return nil, fmt.Errorf("Conv2D: stride %d, pad %d with filters %v: want stride ≥ 1 and 0 ≤ pad < filter size", stride, pad, ws)
	}
	g := convGeom{b: xs[0], c: xs[1], h: xs[2], w: xs[3], o: ws[0], kh: ws[2], kw: ws[3], s: stride, pad: pad}
	g.oh, g.ow = (g.h+2*pad-g.kh)/stride+1, (g.w+2*pad-g.kw)/stride+1
	return G.ApplyOp(&convOp{OpBase: NewOpBase("Conv2D"), g: g, xIsData: xIsData}, x, w)
}

// convGeom is one convolution's sizes: s is the stride, pad the zero
// border on every side.
type convGeom struct {
	b, c, h, w, o, kh, kw, oh, ow int
	s, pad                        int
}

func (g convGeom) k() int { return g.c * g.kh * g.kw } // rows of an image's patch matrix
func (g convGeom) p() int { return g.oh * g.ow }       // output positions per image

type convOp struct {
	OpBase
	g       convGeom
	xIsData bool
	cols    any // []T: every image's patch matrix, [b][k][p], kept for the filters' gradient
}

func (o *convOp) Arity() int    { return 2 }
func (o *convOp) Type() hm.Type { return hm.NewFnType(TensorType(4), TensorType(4), TensorType(4)) }
func (o *convOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.g.b, o.g.o, o.g.oh, o.g.ow}, nil
}
func (o *convOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *convOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	x, w, err := twoDense(o.name, in)
	if err != nil {
		return nil, err
	}
	g := o.g
	out := OutBufFull(pre, in, x.Dtype(), g.b, g.o, g.oh, g.ow)
	switch x.Dtype() {
	case tensor.Float32:
		convFwd(g, x.Float32s(), w.Float32s(), out.Float32s(), scratch[float32](&o.cols, g.b*g.k()*g.p()))
	case tensor.Float64:
		convFwd(g, x.Float64s(), w.Float64s(), out.Float64s(), scratch[float64](&o.cols, g.b*g.k()*g.p()))
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, x.Dtype())
	}
	return out, nil
}

// scratch returns *buf as a []T of length n, reallocated when it is not
// one (a new size or dtype).
func scratch[T Float](buf *any, n int) []T {
	if s, ok := (*buf).([]T); ok && len(s) == n {
		return s
	}
	s := make([]T, n)
	*buf = s
	return s
}

func convFwd[T Float](g convGeom, x, w, out, cols []T) {
	k, p := g.k(), g.p()
	for b := 0; b < g.b; b++ {
		cb := cols[b*k*p : (b+1)*k*p]
		im2col(g, x[b*g.c*g.h*g.w:(b+1)*g.c*g.h*g.w], cb)
		Mul(false, false, 1, Mat[T]{w, g.o, k, k}, Mat[T]{cb, k, p, p}, 0, Mat[T]{out[b*g.o*p : (b+1)*g.o*p], g.o, p, p})
	}
}

// patchRuns calls f for every run of an image's patch matrix that reads
// pixels inside the image: row (c, i, j) of the matrix, output row y,
// output columns x0 to x0+n−1 read cols[at:at+n] from the pixels px, px+s,
// …, px+(n−1)·s of channel c, image row y·s−pad+i. Entries outside every
// run are the zero border.
func (g convGeom) patchRuns(f func(at, px, n int)) {
	p := g.p()
	r := 0
	for c := 0; c < g.c; c++ {
		for i := 0; i < g.kh; i++ {
			for j := 0; j < g.kw; j++ {
				// output columns whose input column x·s−pad+j is in [0, w)
				x0 := (max(0, g.pad-j) + g.s - 1) / g.s
				x1 := 0
				if last := g.w - 1 + g.pad - j; last >= 0 {
					x1 = min(g.ow, last/g.s+1)
				}
				for y := 0; y < g.oh; y++ {
					iy := y*g.s - g.pad + i
					if iy >= 0 && iy < g.h && x1 > x0 {
						f(r*p+y*g.ow+x0, (c*g.h+iy)*g.w+x0*g.s-g.pad+j, x1-x0)
					}
				}
				r++
			}
		}
	}
}

// im2col writes one image's patch matrix.
func im2col[T Float](g convGeom, img, cols []T) {
	if g.pad > 0 {
		clear(cols) // the zero border, which no run writes
	}
	if g.s == 1 {
		g.patchRuns(func(at, px, n int) { copy(cols[at:at+n], img[px:px+n]) })
		return
	}
	g.patchRuns(func(at, px, n int) {
		for x, dst := 0, cols[at:at+n]; x < n; x++ {
			dst[x] = img[px+x*g.s]
		}
	})
}

// col2imAdd adds one image's patch-gradient matrix back onto its pixels,
// the transpose of im2col (the border's gradient goes nowhere).
func col2imAdd[T Float](g convGeom, cols, img []T) {
	if g.s == 1 {
		g.patchRuns(func(at, px, n int) { addRow(cols[at:at+n], img[px:px+n], img[px:px+n]) })
		return
	}
	g.patchRuns(func(at, px, n int) {
		for x, v := range cols[at : at+n] {
			img[px+x*g.s] += v
		}
	})
}

func (o *convOp) DiffWRT(int) []bool { return []bool{!o.xIsData, true} }
func (o *convOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dw, err := G.ApplyOp(&convGradWOp{OpBase: NewOpBase("Conv2DGradW"), fwd: o}, grad)
	if err != nil {
		return nil, err
	}
	if o.xIsData {
		return G.Nodes{nil, dw}, nil
	}
	dx, err := G.ApplyOp(&convGradXOp{OpBase: NewOpBase("Conv2DGradX"), fwd: o}, inputs[1], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, dw}, nil
}

// convGradWOp is the filters' gradient, Σ over images of dy·colsᵀ, from
// the upstream gradient and the patches the forward op kept.
type convGradWOp struct {
	OpBase
	fwd *convOp
}

func (o *convGradWOp) Arity() int    { return 1 }
func (o *convGradWOp) Type() hm.Type { return hm.NewFnType(TensorType(4), TensorType(4)) }
func (o *convGradWOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	g := o.fwd.g
	return tensor.Shape{g.o, g.c, g.kh, g.kw}, nil
}
func (o *convGradWOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *convGradWOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	if err := o.CheckArity(len(in), 1); err != nil {
		return nil, err
	}
	dy, err := AsDense(o.name, in[0])
	if err != nil {
		return nil, err
	}
	g := o.fwd.g
	out := OutBufFull(pre, in, dy.Dtype(), g.o, g.c, g.kh, g.kw)
	switch dy.Dtype() {
	case tensor.Float32:
		cols, ok := o.fwd.cols.([]float32)
		if !ok || len(cols) != g.b*g.k()*g.p() {
			return nil, fmt.Errorf("%s: the forward convolution has not run", o.name)
		}
		convGradW(g, dy.Float32s(), cols, out.Float32s())
	case tensor.Float64:
		cols, ok := o.fwd.cols.([]float64)
		if !ok || len(cols) != g.b*g.k()*g.p() {
			return nil, fmt.Errorf("%s: the forward convolution has not run", o.name)
		}
		convGradW(g, dy.Float64s(), cols, out.Float64s())
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, dy.Dtype())
	}
	return out, nil
}

func convGradW[T Float](g convGeom, dy, cols, dw []T) {
	k, p := g.k(), g.p()
	for b := 0; b < g.b; b++ {
		beta := 1.0
		if b == 0 {
			beta = 0 // overwrite whatever the buffer held
		}
		Mul(false, true, 1, Mat[T]{dy[b*g.o*p : (b+1)*g.o*p], g.o, p, p}, Mat[T]{cols[b*k*p : (b+1)*k*p], k, p, p},
			beta, Mat[T]{dw, g.o, k, k})
	}
}

// convGradXOp is the images' gradient: per image wᵀ·dy, scattered back
// onto the pixels (col2im).
type convGradXOp struct {
	OpBase
	fwd  *convOp
	dcol any // []T: one image's patch gradient
}

func (o *convGradXOp) Arity() int { return 2 }
func (o *convGradXOp) Type() hm.Type {
	return hm.NewFnType(TensorType(4), TensorType(4), TensorType(4))
}
func (o *convGradXOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	g := o.fwd.g
	return tensor.Shape{g.b, g.c, g.h, g.w}, nil
}
func (o *convGradXOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *convGradXOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	w, dy, err := twoDense(o.name, in)
	if err != nil {
		return nil, err
	}
	g := o.fwd.g
	out := outBuf(pre, in, dy.Dtype(), g.b, g.c, g.h, g.w) // zeroed: col2im adds
	switch dy.Dtype() {
	case tensor.Float32:
		convGradX(g, w.Float32s(), dy.Float32s(), out.Float32s(), scratch[float32](&o.dcol, g.k()*g.p()))
	case tensor.Float64:
		convGradX(g, w.Float64s(), dy.Float64s(), out.Float64s(), scratch[float64](&o.dcol, g.k()*g.p()))
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, dy.Dtype())
	}
	return out, nil
}

func convGradX[T Float](g convGeom, w, dy, dx, dcol []T) {
	k, p, n := g.k(), g.p(), g.c*g.h*g.w
	for b := 0; b < g.b; b++ {
		Mul(true, false, 1, Mat[T]{w, g.o, k, k}, Mat[T]{dy[b*g.o*p : (b+1)*g.o*p], g.o, p, p}, 0, Mat[T]{dcol, k, p, p})
		col2imAdd(g, dcol, dx[b*n:(b+1)*n])
	}
}
