package nn

import (
	"fmt"

	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ConvRows is Conv2DPadded on images kept in the row layout of an image
// norm site (channels last, NHWC): x is [B·H·W, C], one row per pixel in
// image, row, column order; the output is [B·OH·OW, O] in the same
// layout, which the norm, ReLU, the residual sum and the next convolution
// read as it is. So the resnet needs no transposes between its
// convolutions and its norms (ToRows/FromRows), and the product per block
// of output rows is rows × (C·kh·kw) patches times the filters, a tall
// product whose large operand the GEMM reads in place, not per image
// (C·kh·kw) × (H·W) patches it had to pack. w is [O, C, kh, kw], as for
// Conv2D; xIsData says x is the model's input, whose gradient is not built.
//
// The patches are written for one block of output rows at a time (a few
// tens of KB, so they stay in cache between im2col and the product), and
// the filters' gradient writes them again from x rather than keeping the
// whole patch matrix: copying 3·C pixels costs less than writing and
// re-reading 9× the activations through memory.
func ConvRows(x, w *G.Node, b, h, wd, stride, pad int, xIsData bool) (*G.Node, error) {
	xs, ws := x.Shape(), w.Shape()
	if xs.Dims() != 2 || ws.Dims() != 4 || xs[0] != b*h*wd || xs[1] != ws[1] || ws[2] > h+2*pad || ws[3] > wd+2*pad {
		return nil, fmt.Errorf("ConvRows: rows %v of %d images %d×%d and filters %v do not match (pad %d)", xs, b, h, wd, ws, pad)
	}
	if stride < 1 || pad < 0 || pad >= ws[2] || pad >= ws[3] {
		return nil, fmt.Errorf("ConvRows: stride %d, pad %d with filters %v: want stride ≥ 1 and 0 ≤ pad < filter size", stride, pad, ws)
	}
	g := convGeom{b: b, c: xs[1], h: h, w: wd, o: ws[0], kh: ws[2], kw: ws[3], s: stride, pad: pad}
	g.oh, g.ow = (g.h+2*pad-g.kh)/stride+1, (g.w+2*pad-g.kw)/stride+1
	o := &convRowsOp{g: g, xIsData: xIsData}
	return graphop.Op{Kind: "ConvRows", Out: tensor.Shape{g.outRows(), g.o}, Grad: o.grad, DiffWRT: []bool{!xIsData, true},
		F32: convRowsKernel[float32](o), F64: convRowsKernel[float64](o)}.Apply(x, w)
}

// blockRows is how many output rows one patch block holds: about 24K
// values (96 KB in float32), at least 16 rows.
func (g convGeom) blockRows() int { return max(16, (24<<10)/g.k()) }

// outRows are the output rows of the batch, B·OH·OW.
func (g convGeom) outRows() int { return g.b * g.p() }

// permuteFilters writes w [O, C, kh, kw] as wp [K, O] with K in (i, j, c)
// order, the order of a patch row in the row layout.
func permuteFilters[T Float](g convGeom, w, wp []T) {
	for o := 0; o < g.o; o++ {
		for c := 0; c < g.c; c++ {
			for i := 0; i < g.kh; i++ {
				for j := 0; j < g.kw; j++ {
					wp[((i*g.kw+j)*g.c+c)*g.o+o] = w[((o*g.c+c)*g.kh+i)*g.kw+j]
				}
			}
		}
	}
}

// unpermuteFilters is permuteFilters' inverse: dwp [K, O] into dw [O, C, kh, kw].
func unpermuteFilters[T Float](g convGeom, dwp, dw []T) {
	for o := 0; o < g.o; o++ {
		for c := 0; c < g.c; c++ {
			for i := 0; i < g.kh; i++ {
				for j := 0; j < g.kw; j++ {
					dw[((o*g.c+c)*g.kh+i)*g.kw+j] = dwp[((i*g.kw+j)*g.c+c)*g.o+o]
				}
			}
		}
	}
}

// patchRows calls f for every output row r in [r0, r1) with the offset
// in x of pixel (b, y·s − pad, x·s − pad), the top-left corner of its
// window (it may lie outside the image), the window's first row iy0, and
// the filter columns [j0, j1) that lie inside the image. The output rows
// are walked in order, so no division per row.
func (g convGeom) patchRows(r0, r1 int, f func(r, corner, iy0, j0, j1 int)) {
	p := g.p()
	b, pos := r0/p, r0%p
	oy, ox := pos/g.ow, pos%g.ow
	for r := r0; r < r1; r++ {
		iy0, ix0 := oy*g.s-g.pad, ox*g.s-g.pad
		f(r, ((b*g.h+iy0)*g.w+ix0)*g.c, iy0, max(0, -ix0), min(g.kw, g.w-ix0))
		if ox++; ox == g.ow {
			ox = 0
			if oy++; oy == g.oh {
				oy = 0
				b++
			}
		}
	}
}

// im2colRows writes the patch rows of output rows [r0, r1) into cols: row
// r − r0 holds, per filter row i, the kw pixels it covers, C values each,
// zero where the window leaves the image.
func im2colRows[T Float](g convGeom, x, cols []T, r0, r1 int) {
	k, rowLen, c := g.k(), g.kw*g.c, g.c
	g.patchRows(r0, r1, func(r, corner, iy0, j0, j1 int) {
		dst := cols[(r-r0)*k : (r-r0+1)*k]
		for i := 0; i < g.kh; i++ {
			seg := dst[i*rowLen : (i+1)*rowLen]
			if iy := iy0 + i; iy < 0 || iy >= g.h || j1 <= j0 {
				clear(seg)
				continue
			}
			px := corner + i*g.w*c
			clear(seg[:j0*c])
			copy(seg[j0*c:j1*c], x[px+j0*c:px+j1*c])
			clear(seg[j1*c:])
		}
	})
}

// col2imRows adds the patch gradient rows of output rows [r0, r1) back
// onto the pixels they were read from (the border's gradient goes nowhere).
func col2imRows[T Float](g convGeom, dcols, dx []T, r0, r1 int) {
	k, rowLen, c := g.k(), g.kw*g.c, g.c
	g.patchRows(r0, r1, func(r, corner, iy0, j0, j1 int) {
		src := dcols[(r-r0)*k : (r-r0+1)*k]
		for i := 0; i < g.kh; i++ {
			if iy := iy0 + i; iy < 0 || iy >= g.h || j1 <= j0 {
				continue
			}
			px := corner + i*g.w*c
			d := dx[px+j0*c : px+j1*c]
			addRow(src[i*rowLen+j0*c:i*rowLen+j1*c], d, d)
		}
	})
}

// convRowsOp is one ConvRows node's geometry and its forward's scratch.
type convRowsOp struct {
	g       convGeom
	xIsData bool
	wp      any // []T: the filters as [K, O]
	cols    any // []T: one block of patch rows
	xp, v   any // []T: stride 1: the padded input, the virtual rows' output
}

// convRowsKernel is the forward on the inputs (x, w).
func convRowsKernel[T Float](o *convRowsOp) graphop.Kernel[T] {
	return func(out []T, in [][]T) error { convRowsFwdOp(o, in[0], in[1], out); return nil }
}

// convRowsFwdOp runs the forward on the op's scratch: in place from a
// padded copy at stride 1 (op_convrows_implicit.go), else by blocks of
// patch rows.
func convRowsFwdOp[T Float](o *convRowsOp, x, w, out []T) {
	g := o.g
	wp := scratch[T](&o.wp, g.k()*g.o)
	if g.implicitConv() {
		p := g.fwdPad()
		convImplicitFwd(g, x, w, out, wp, scratch[T](&o.xp, p.bufLen()), scratch[T](&o.v, p.virtualRows(g.kh, g.kw)*g.o), &o.cols)
		return
	}
	convRowsFwd(g, x, w, out, wp, scratch[T](&o.cols, g.blockRows()*g.k()))
}

func convRowsFwd[T Float](g convGeom, x, w, out, wp, cols []T) {
	permuteFilters(g, w, wp)
	convRowsPermuted(g, x, wp, out, cols)
}

// convRowsPermuted is convRowsFwd with the filters already laid out as wp
// [K, O].
func convRowsPermuted[T Float](g convGeom, x, wp, out, cols []T) {
	k, n, rb := g.k(), g.outRows(), g.blockRows()
	for r0 := 0; r0 < n; r0 += rb {
		m := min(rb, n-r0)
		im2colRows(g, x, cols, r0, r0+m)
		Mul(false, false, 1, Mat[T]{cols, m, k, k}, Mat[T]{wp, k, g.o, g.o}, 0, Mat[T]{out[r0*g.o:], m, g.o, g.o})
	}
}

// grad is the filters' gradient from the input rows and the upstream
// gradient, and unless x is data the input rows' gradient from the filters
// and the upstream gradient.
func (o *convRowsOp) grad(in G.Nodes, dy *G.Node) (G.Nodes, error) {
	g := o.g
	wo := &convRowsGradWOp{g: g}
	dw, err := graphop.Op{Kind: "ConvRowsGradW", Out: tensor.Shape{g.o, g.c, g.kh, g.kw},
		F32: convRowsGradWKernel[float32](wo), F64: convRowsGradWKernel[float64](wo)}.Apply(in[0], dy)
	if err != nil {
		return nil, err
	}
	if o.xIsData {
		return G.Nodes{nil, dw}, nil
	}
	xo := &convRowsGradXOp{g: g}
	// the stride-1 path writes every pixel; the blocks' col2im adds onto
	// zeros (which path runs is fixed when the graph is built: the CPU's,
	// and in tests implicitAnySize, set before)
	dx, err := graphop.Op{Kind: "ConvRowsGradX", Out: tensor.Shape{g.b * g.h * g.w, g.c}, Accumulates: !g.implicitConv(),
		F32: convRowsGradXKernel[float32](xo), F64: convRowsGradXKernel[float64](xo)}.Apply(in[1], dy)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, dw}, nil
}

// convRowsGradWOp is the scratch of the filters' gradient: Σ over blocks
// of patchesᵀ·dy, as [K, O], then laid out as the filters.
type convRowsGradWOp struct {
	g       convGeom
	dwp     any // []T: [K, O]
	cols    any // []T: one block of patch rows
	xp, dyv any // []T: stride 1: the padded input, dy on the virtual rows
}

// convRowsGradWKernel is the filters' gradient on the inputs (x, dy).
func convRowsGradWKernel[T Float](o *convRowsGradWOp) graphop.Kernel[T] {
	return func(dw []T, in [][]T) error { convRowsGradWOpDo(o, in[0], in[1], dw); return nil }
}

// convRowsGradWOpDo runs the filters' gradient on the op's scratch.
func convRowsGradWOpDo[T Float](o *convRowsGradWOp, x, dy, dw []T) {
	g := o.g
	dwp := scratch[T](&o.dwp, g.k()*g.o)
	if g.implicitConv() {
		p := g.fwdPad()
		convImplicitGradW(g, x, dy, dw, dwp, scratch[T](&o.xp, p.bufLen()),
			scratch[T](&o.dyv, padded{b: g.b, hp: p.hp, wp: p.wp, c: g.o}.len()))
		return
	}
	convRowsGradW(g, x, dy, dw, dwp, scratch[T](&o.cols, g.blockRows()*g.k()))
}

func convRowsGradW[T Float](g convGeom, x, dy, dw, dwp, cols []T) {
	k, n, rb := g.k(), g.outRows(), g.blockRows()
	for r0 := 0; r0 < n; r0 += rb {
		m := min(rb, n-r0)
		im2colRows(g, x, cols, r0, r0+m)
		beta := 1.0
		if r0 == 0 {
			beta = 0 // overwrite what the buffer held
		}
		Mul(true, false, 1, Mat[T]{cols, m, k, k}, Mat[T]{dy[r0*g.o:], m, g.o, g.o}, beta, Mat[T]{dwp, k, g.o, g.o})
	}
	unpermuteFilters(g, dwp, dw)
}

// convRowsGradXOp is the scratch of the input rows' gradient: per block
// dy·Wᵀ, added back onto the pixels (col2im).
type convRowsGradXOp struct {
	g      convGeom
	wp     any // []T: the filters as [K, O] (stride 1: flipped, [K', C])
	dcols  any // []T: one block of patch-gradient rows
	dyp, v any // []T: stride 1: the padded output gradient, the virtual rows' dx
}

// convRowsGradXKernel is the input rows' gradient on the inputs (w, dy).
func convRowsGradXKernel[T Float](o *convRowsGradXOp) graphop.Kernel[T] {
	return func(dx []T, in [][]T) error { convRowsGradXOpDo(o, in[0], in[1], dx); return nil }
}

// convRowsGradXOpDo runs the input's gradient on the op's scratch; dx
// must be zero unless the stride-1 path runs.
func convRowsGradXOpDo[T Float](o *convRowsGradXOp, w, dy, dx []T) {
	g := o.g
	wp := scratch[T](&o.wp, g.k()*g.o)
	if g.implicitConv() {
		p := g.bwdPad()
		convImplicitGradX(g, w, dy, dx, wp, scratch[T](&o.dyp, p.bufLen()), scratch[T](&o.v, p.virtualRows(g.kh, g.kw)*g.c), &o.dcols)
		return
	}
	convRowsGradX(g, w, dy, dx, wp, scratch[T](&o.dcols, g.blockRows()*g.k()))
}

func convRowsGradX[T Float](g convGeom, w, dy, dx, wp, dcols []T) {
	permuteFilters(g, w, wp)
	k, n, rb := g.k(), g.outRows(), g.blockRows()
	for r0 := 0; r0 < n; r0 += rb {
		m := min(rb, n-r0)
		Mul(false, true, 1, Mat[T]{dy[r0*g.o:], m, g.o, g.o}, Mat[T]{wp, k, g.o, g.o}, 0, Mat[T]{dcols, m, k, k})
		col2imRows(g, dcols, dx, r0, r0+m)
	}
}
