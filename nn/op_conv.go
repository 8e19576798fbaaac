package nn

import (
	"errors"
	"fmt"

	"github.com/normtop/normtop/internal/graphop"
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
	o := &convOp{g: g, xIsData: xIsData}
	return graphop.Op{Kind: "Conv2D", Out: tensor.Shape{g.b, g.o, g.oh, g.ow}, Grad: o.grad, DiffWRT: []bool{!xIsData, true}, State: o,
		F32: convKernel[float32](o), F64: convKernel[float64](o)}.Apply(x, w)
}

// convGeom is one convolution's sizes: s is the stride, pad the zero
// border on every side.
type convGeom struct {
	b, c, h, w, o, kh, kw, oh, ow int
	s, pad                        int
}

func (g convGeom) k() int { return g.c * g.kh * g.kw } // rows of an image's patch matrix
func (g convGeom) p() int { return g.oh * g.ow }       // output positions per image

// convOp is one Conv2D node's geometry and the patches its forward keeps
// for the filters' gradient.
type convOp struct {
	g       convGeom
	xIsData bool
	cols    any // []T: every image's patch matrix, [b][k][p], kept for the filters' gradient
}

// convKernel is the forward on the inputs (x, w).
func convKernel[T Float](o *convOp) graphop.Kernel[T] {
	return func(out []T, in [][]T) error {
		convFwd(o.g, in[0], in[1], out, scratch[T](&o.cols, o.g.b*o.g.k()*o.g.p()))
		return nil
	}
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

// grad is the filters' gradient from the upstream gradient and the
// patches the forward kept, and unless x is data the images' gradient from
// the filters and the upstream gradient.
func (o *convOp) grad(in G.Nodes, dy *G.Node) (G.Nodes, error) {
	g := o.g
	dw, err := graphop.Op{Kind: "Conv2DGradW", Out: tensor.Shape{g.o, g.c, g.kh, g.kw},
		F32: convGradWKernel[float32](o), F64: convGradWKernel[float64](o)}.Apply(dy)
	if err != nil {
		return nil, err
	}
	if o.xIsData {
		return G.Nodes{nil, dw}, nil
	}
	// Accumulates: col2im adds onto zeros; dcol is one image's patch gradient, []T
	dcol := new(any)
	dx, err := graphop.Op{Kind: "Conv2DGradX", Out: tensor.Shape{g.b, g.c, g.h, g.w}, Accumulates: true,
		F32: convGradXKernel[float32](g, dcol), F64: convGradXKernel[float64](g, dcol)}.Apply(in[1], dy)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, dw}, nil
}

// convGradWKernel is Σ over images of dy·colsᵀ on the input (dy).
func convGradWKernel[T Float](o *convOp) graphop.Kernel[T] {
	return func(dw []T, in [][]T) error {
		g := o.g
		cols, ok := o.cols.([]T)
		if !ok || len(cols) != g.b*g.k()*g.p() {
			return errors.New("the forward convolution has not run")
		}
		convGradW(g, in[0], cols, dw)
		return nil
	}
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

// convGradXKernel is the images' gradient on the inputs (w, dy): per
// image wᵀ·dy, scattered back onto the zeroed pixels (col2im).
func convGradXKernel[T Float](g convGeom, dcol *any) graphop.Kernel[T] {
	return func(dx []T, in [][]T) error {
		convGradX(g, in[0], in[1], dx, scratch[T](dcol, g.k()*g.p()))
		return nil
	}
}

func convGradX[T Float](g convGeom, w, dy, dx, dcol []T) {
	k, p, n := g.k(), g.p(), g.c*g.h*g.w
	for b := 0; b < g.b; b++ {
		Mul(true, false, 1, Mat[T]{w, g.o, k, k}, Mat[T]{dy[b*g.o*p : (b+1)*g.o*p], g.o, p, p}, 0, Mat[T]{dcol, k, p, p})
		col2imAdd(g, dcol, dx[b*n:(b+1)*n])
	}
}
