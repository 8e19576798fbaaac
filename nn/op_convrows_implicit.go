package nn

import (
	"sync"

	"github.com/normtop/normtop/gemm"
)

// The stride-1 path of ConvRows: the patches read in place from a
// zero-bordered copy of the image, no im2col. In the padded layout [B, HP,
// WP, C], the window of the output at virtual row q = (b·HP + y)·WP + x
// starts at padded pixel q, and its filter row i is the kw·C values from
// pixel q + i·WP on. So a virtual row's patch is kh runs of kw·C values
// WP·C apart, and the patch rows of consecutive virtual rows start C
// apart: the OW windows of one output row are one product over
// consecutive virtual rows (gemm.Windows), written straight into the
// output's rows, against writing every patch 9 values wide. The input's
// gradient is the same convolution of the output's zero-bordered gradient
// with the filters flipped and transposed, so it writes every pixel's
// gradient once instead of adding each patch's back (col2im) into a
// cleared buffer; the filters' gradient is kh products of the padded
// image's patch matrix of one filter row, transposed (rows overlapping,
// gemm.WindowsT, or gemm.Overlapping), by the output gradient laid out on
// all virtual rows, zero at the windows that wrap into the border (x ≥ OW
// or y ≥ OH: 15% more rows at 28×28, 31% at 14×14).

// implicitConv says the stride-1 path runs: stride 1, the GEMM's kernels
// (which take overlapping rows), and at most 40% more virtual rows than
// outputs. BenchmarkConvRows at the resnet's shapes, one core: at 28×28
// (15% more rows) and 14×14 (31%) the forward and the filters' gradient
// took about half the time of the patch-block path; at 7×7 (65%) the
// filters' gradient took three times as long.
func (g convGeom) implicitConv() bool {
	p := g.fwdPad()
	return g.s == 1 && gemm.CanOverlap() && (implicitAnySize || 10*p.hp*p.wp <= 14*g.oh*g.ow)
}

// implicitAnySize lifts the 40% bound, so that tests run the stride-1 path
// on small images too.
var implicitAnySize = false

// padded is a batch of images laid out with a zero border: hp×wp pixels of
// c values each, the image's pixel (y, x) at (y + top, x + left), read by
// windows s pixels apart (the convolution's stride; 0 reads as 1).
type padded struct {
	b, hp, wp, c, top, left int
	s                       int
}

// step is the pixels between the windows of consecutive outputs.
func (p padded) step() int { return max(1, p.s) }

func (p padded) len() int { return p.b * p.hp * p.wp * p.c }

// bufLen is the length of a padded buffer that windowConv reads: the
// images and 8 windows' steps more, since gemm.Windows reads whole
// register blocks of 8 windows, up to 7 past an output row's last (the
// last row's reach past the buffer's end is at most 7 steps).
func (p padded) bufLen() int { return p.len() + 8*p.step()*p.c }

// virtualRows are the rows of the product over p with a kh×kw window: the
// windows that start at every pixel from which the window stays inside
// the batch's buffer.
func (p padded) virtualRows(kh, kw int) int { return p.b*p.hp*p.wp - (kh-1)*p.wp - (kw - 1) }

// padFill writes the h×w images x ([b·h·w, c] rows) into dst's interior. The
// border is never written: dst comes zeroed from scratch and keeps its
// zeros from call to call.
func padFill[T Float](p padded, h, w int, x, dst []T) {
	row := w * p.c
	for b := 0; b < p.b; b++ {
		for y := 0; y < h; y++ {
			src := x[((b*h+y)*w)*p.c:][:row]
			copy(dst[((b*p.hp+y+p.top)*p.wp+p.left)*p.c:][:row], src)
		}
	}
}

// windowConv is the convolution of the padded images xp with filters wk
// [kh·kw·c, n] at every window that fits, s = p.step() pixels apart, into
// out: [b·oh·ow, n] rows with oh = (hp−kh)/s+1, ow = (wp−kw)/s+1. Where
// gemm.Windows runs, it takes the ow windows of each output row, which
// start s pixels apart, in one product written straight into out's rows:
// no patch is written, and the windows that wrap into the border (x ≥ ow)
// are never computed (before, one product over all virtual rows wrote 15%
// more rows at 28×28 and 31% more at 14×14 to a buffer, then gathered the
// valid ones). Elsewhere the same convolution runs by patch blocks over
// the padded images (an unpadded ConvRows, cols its scratch), whose
// products sum each output in the same order, so the bits do not depend
// on the CPU having AVX-512.
func windowConv[T Float](p padded, kh, kw int, xp, wk []T, n int, out []T, cols *any) {
	kr, s := kw*p.c, p.step()
	oh, ow := (p.hp-kh)/s+1, (p.wp-kw)/s+1
	if x32, ok := any(xp).([]float32); ok && gemm.WindowsRuns(n, kh*kr) {
		w32, o32 := any(wk).([]float32), any(out).([]float32)
		for b := 0; b < p.b; b++ {
			for y := 0; y < oh; y++ {
				gemm.Windows(ow, n, kr, kh, p.wp*p.c, x32[((b*p.hp+s*y)*p.wp)*p.c:], s*p.c, w32, n, o32[((b*oh+y)*ow)*n:], n)
			}
		}
		return
	}
	g := convGeom{b: p.b, c: p.c, h: p.hp, w: p.wp, o: n, kh: kh, kw: kw, oh: oh, ow: ow, s: s}
	convRowsPermuted(g, xp[:p.len()], wk, out, scratch[T](cols, g.blockRows()*g.k()))
}

// stridedWindows says a strided forward runs by windows of a padded copy
// (windowConv) rather than by patch blocks: where gemm.Windows takes its
// product (float32), which gives the patch blocks' bits.
func stridedWindows[T Float](g convGeom) bool {
	var z T
	_, f32 := any(z).(float32)
	return g.s > 1 && f32 && gemm.WindowsRuns(g.o, g.k())
}

// mulOverlap is gemm.Overlapping for nn's element types: C = op(A)·B +
// beta·C with A's rows lda apart, overlapping.
func mulOverlap[T Float](tA bool, m, n, k int, a []T, lda int, b []T, ldb int, beta float64, c []T, ldc int) {
	ok := false
	switch ad := any(a).(type) {
	case []float32:
		ok = gemm.Overlapping(tA, false, m, n, k, 1, ad, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		ok = gemm.Overlapping(tA, false, m, n, k, 1, ad, lda, any(b).([]float64), ldb, beta, any(c).([]float64), ldc)
	}
	if !ok {
		panic("nn: the stride-1 convolution ran without the GEMM's kernels")
	}
}

// fwdPad is the forward's padded input: the convolution's own border.
func (g convGeom) fwdPad() padded {
	return padded{b: g.b, hp: g.h + 2*g.pad, wp: g.w + 2*g.pad, c: g.c, top: g.pad, left: g.pad, s: g.s}
}

// bwdPad is the input gradient's padded output gradient: a border of
// kh−1−pad rows and kw−1−pad columns, so that a kh×kw window over it gives
// the h×w input.
func (g convGeom) bwdPad() padded {
	t, l := g.kh-1-g.pad, g.kw-1-g.pad
	return padded{b: g.b, hp: g.oh + 2*t, wp: g.ow + 2*l, c: g.o, top: t, left: l}
}

// convImplicitFwd is the forward by windows: out = conv(x, w) through the
// padded copy xp (stride 1, or stridedWindows).
func convImplicitFwd[T Float](g convGeom, x, w, out, wp, xp []T, cols *any) {
	permuteFilters(g, w, wp)
	p := g.fwdPad()
	padFill(p, g.h, g.w, x, xp)
	windowConv(p, g.kh, g.kw, xp, wp, g.o, out, cols)
}

// flipFilters writes w [O, C, kh, kw] as wf [kh·kw·O, C]: the filters
// rotated by 180° and transposed, in the (i, j, o) row order of a window
// over the output gradient.
func flipFilters[T Float](g convGeom, w, wf []T) {
	for o := 0; o < g.o; o++ {
		for c := 0; c < g.c; c++ {
			for i := 0; i < g.kh; i++ {
				for j := 0; j < g.kw; j++ {
					wf[(((g.kh-1-i)*g.kw+(g.kw-1-j))*g.o+o)*g.c+c] = w[((o*g.c+c)*g.kh+i)*g.kw+j]
				}
			}
		}
	}
}

// convImplicitGradX is the stride-1 input gradient: dx = conv(dy with a
// border, the flipped filters), every element of dx written.
func convImplicitGradX[T Float](g convGeom, w, dy, dx, wf, dyp []T, cols *any) {
	flipFilters(g, w, wf)
	p := g.bwdPad()
	padFill(p, g.oh, g.ow, dy, dyp)
	windowConv(p, g.kh, g.kw, dyp, wf, g.c, dx, cols)
}

// convImplicitGradW is the stride-1 filters' gradient: per filter row i,
// (patch matrix of row i)ᵀ · dy on the virtual rows (dyv: dy at its
// outputs' virtual rows, zero at the others), into rows i of dwp [K, O].
func convImplicitGradW[T Float](g convGeom, x, dy, dw, dwp, xp, dyv []T) {
	p := g.fwdPad()
	padFill(p, g.h, g.w, x, xp)
	// dy at virtual row (b·hp + y)·wp + x: the padded layout with no border
	// before the image (the rows past it stay zero)
	padFill(padded{b: g.b, hp: p.hp, wp: p.wp, c: g.o}, g.oh, g.ow, dy, dyv)
	m, kr := p.virtualRows(g.kh, g.kw), g.kw*g.c
	for i := 0; i < g.kh; i++ {
		xi, dwi := xp[i*p.wp*g.c:], dwp[i*kr*g.o:]
		// gemm.WindowsT gives mulOverlap's bits without packing xp's
		// transpose: kr rows of dw in registers, xp read in place
		if x32, ok := any(xi).([]float32); !ok ||
			!gemm.WindowsT(m, kr, g.o, x32, g.c, any(dyv).([]float32), g.o, any(dwi).([]float32), g.o) {
			mulOverlap(true, kr, g.o, m, xi, g.c, dyv, g.o, 0, dwi, g.o)
		}
	}
	unpermuteFilters(g, dwp, dw)
}

// convWindowsGradW is the filters' gradient of any stride in float32 where
// gemm.WindowsTRuns runs: per filter row i, Σ over the valid windows of
// (the window's row i in the padded copy xp)ᵀ·dy, read in place, the
// windows in the chains of g.gradWChains (the k blocks of the path it
// replaces, so the same bits). Against convImplicitGradW it copies no
// output gradient onto the padded image's virtual rows and skips the
// windows that wrap into the border (zero rows there: their products
// added exact zeros, so the sums are the same but for the sign of an
// all-zero one, and the non-finite inputs those windows read); against
// the patch blocks (strided, or 7×7), it writes no patches.
func convWindowsGradW(g convGeom, x, dy, dw, dwp, xp []float32) bool {
	if !gemm.HasWindowKernels() {
		return false
	}
	p := g.fwdPad()
	padFill(p, g.h, g.w, x, xp)
	ch, kr := g.gradWChains(), g.kw*g.c
	for i := 0; i < g.kh; i++ {
		gemm.WindowsTRuns(kr, g.o, xp[i*p.wp*g.c:], g.s*g.c, dy, g.o, ch.runs, ch.ends, dwp[i*kr*g.o:], g.o, false)
	}
	unpermuteFilters(g, dwp, dw)
	return true
}

// windowChains are the valid windows of a convolution as runs of
// gemm.WindowsTRuns (one output row's windows, cut at the chains' ends:
// A at the window's first padded pixel, B at its output row), and the
// chains' ends among them.
type windowChains struct {
	runs []gemm.Run
	ends []int
}

// gradWChainsOf memoises gradWChains per geometry and path (implicitConv,
// which tests switch with implicitAnySize): they depend on nothing else
// and every step of every variant asks for them.
var gradWChainsOf sync.Map // chainsKey → *windowChains

type chainsKey struct {
	g        convGeom
	implicit bool
}

// gradWChains are the windows of g's filters' gradient in the k blocks of
// the path it replaces: at stride 1 where implicitConv holds, the blocks
// of the product over every virtual row of the padded image (q = (b·hp +
// y)·wp + x, gemm.KBlock(virtual rows) each); elsewhere the patch blocks'
// blocks (blockRows output rows, each in k blocks of gemm.KBlock of its
// rows).
func (g convGeom) gradWChains() *windowChains {
	key := chainsKey{g, g.implicitConv()}
	if ch, ok := gradWChainsOf.Load(key); ok {
		return ch.(*windowChains)
	}
	p, s := g.fwdPad(), g.s
	ch := &windowChains{}
	// each output row's windows: coordinates [lo, lo+ow) in the blocks'
	// space, A and B (elements) at lo
	var bounds []int // the chains' ends, in the blocks' space
	if key.implicit {
		m := p.virtualRows(g.kh, g.kw)
		for e, kc := 0, gemm.KBlock(m); e < m; {
			e = min(m, e+kc)
			bounds = append(bounds, e)
		}
	} else {
		n, rb := g.outRows(), g.blockRows()
		for r0 := 0; r0 < n; r0 += rb {
			l := min(rb, n-r0)
			for e, kc := r0, gemm.KBlock(l); e < r0+l; {
				e = min(r0+l, e+kc)
				bounds = append(bounds, e)
			}
		}
	}
	chain := 0
	for b := 0; b < g.b; b++ {
		for y := 0; y < g.oh; y++ {
			lo := (b*g.oh + y) * g.ow // output row
			a0 := ((b*p.hp + s*y) * p.wp) * g.c
			if key.implicit {
				lo = (b*p.hp + y) * p.wp // virtual row
			}
			b0 := ((b*g.oh + y) * g.ow) * g.o
			for x := 0; x < g.ow; {
				for lo+x >= bounds[chain] {
					ch.ends = append(ch.ends, len(ch.runs))
					chain++
				}
				n := min(g.ow-x, bounds[chain]-(lo+x))
				ch.runs = append(ch.runs, gemm.Run{A: a0 + s*x*g.c, B: b0 + x*g.o, N: n})
				x += n
			}
		}
	}
	for ; chain < len(bounds); chain++ {
		ch.ends = append(ch.ends, len(ch.runs))
	}
	got, _ := gradWChainsOf.LoadOrStore(key, ch)
	return got.(*windowChains)
}
