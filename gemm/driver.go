package gemm

import (
	"sync"
	"unsafe"
)

type float interface{ float32 | float64 }

// Block sizes. A kc×nr panel of packed B (16 KiB for the 6×16 kernel, 32
// KiB for the 8×32 one at kc = 256) stays in L1 while the kernel sweeps an
// mc-row block of A (96 KiB, in L2); the packed kc×nc block of B (1.5 MiB)
// lives in L2/L3. The trainer's products (k ≤ 1024, n ≤ 1024) mostly fit
// one block of each. kc blocks are the same for every kernel: they fix
// each element's summation, so every kernel gives the same bits.
const (
	kcBlock = 256
	mcBlock = 96   // a multiple of every kernel's mr
	ncBlock = 1536 // a multiple of every panel width
)

// kernelID names one assembly micro-kernel.
type kernelID uint8

const (
	k6x16 kernelID = iota + 1 // float32, AVX2
	k8x32                     // float32, AVX-512
	k8x16                     // float32, AVX-512, a half-width last panel
	k6x8                      // float64, AVX2
)

// micro is a micro-kernel and its register block: mr rows of C by nr
// columns, the width of B's packed panels. half, where set, is a kernel
// of mr rows and nr/2 columns for a last panel at most half full, which
// would otherwise cost a full block's FMAs and go through the edge copy;
// it writes only the panel's columns of C (a masked store), so a panel of
// 10 columns needs no edge copy either.
type micro struct {
	mr, nr int
	id     kernelID
	half   kernelID
}

var (
	narrow32 = micro{mr: 6, nr: 16, id: k6x16}
	wide32   = micro{mr: 8, nr: 32, id: k8x32, half: k8x16}
	narrow64 = micro{mr: 6, nr: 8, id: k6x8}
)

// microFor is the micro-kernel T's products use: for float32 the AVX-512
// one where useAVX512 is set.
func microFor[T float]() micro {
	var z T
	switch {
	case unsafe.Sizeof(z) == 8:
		return narrow64
	case useAVX512:
		return wide32
	}
	return narrow32
}

// kernel runs micro-kernel id, which must be one of T's. nw is how many
// of the block's columns to write: the block's width, or less for k8x16.
func kernel[T float](id kernelID, nw, kc int, a *T, rsa, csa int, b *T, ldb int, c *T, ldc int, alpha T, add bool) {
	if id == k6x8 {
		kernel6x8(kc, (*float64)(unsafe.Pointer(a)), rsa, csa, (*float64)(unsafe.Pointer(b)), ldb,
			(*float64)(unsafe.Pointer(c)), ldc, float64(alpha), add)
		return
	}
	a32, b32, c32, alpha32 := (*float32)(unsafe.Pointer(a)), (*float32)(unsafe.Pointer(b)), (*float32)(unsafe.Pointer(c)), float32(alpha)
	switch id {
	case k8x32:
		kernel8x32(kc, a32, rsa, csa, b32, ldb, c32, ldc, alpha32, add)
	case k8x16:
		kernel8x16(kc, a32, rsa, csa, b32, ldb, c32, ldc, alpha32, add, uint16(1)<<nw-1)
	default:
		kernel6x16(kc, a32, rsa, csa, b32, ldb, c32, ldc, alpha32, add)
	}
}

// fuseBPack packs an untransposed B's full panels in the first row
// block's kernel calls (kernel8x32p) rather than in a pass of their own;
// tests switch it off to compare the bits.
var fuseBPack = true

// kernelPacking runs kernel8x32p: kernel8x32 on B in place (b, ldb),
// storing B's kc×32 block to the panel at pk as it reads it. Only wide32's
// float32 products call it.
func kernelPacking[T float](kc int, a *T, rsa, csa int, b *T, ldb int, c *T, ldc int, alpha T, add bool, pk *T) {
	f := func(x *T) *float32 { return (*float32)(unsafe.Pointer(x)) }
	kernel8x32p(kc, f(a), rsa, csa, f(b), ldb, f(c), ldc, float32(alpha), add, f(pk))
}

// fuseAPack packs a transposed A's full register blocks in the first
// panel's kernel calls (kernel8x32a) rather than in a pass of its own;
// tests switch it off to compare the bits.
var fuseAPack = true

// kernelPackingA runs kernel8x32a: kernel8x32 on a transposed A in place
// (rsa = 1), storing its 8×kc block to the packed panel at pk as it reads
// it. Only wide32's float32 products call it.
func kernelPackingA[T float](kc int, a *T, rsa, csa int, b *T, ldb int, c *T, ldc int, alpha T, add bool, pk *T) {
	f := func(x *T) *float32 { return (*float32)(unsafe.Pointer(x)) }
	kernel8x32a(kc, f(a), rsa, csa, f(b), ldb, f(c), ldc, float32(alpha), add, f(pk))
}

// work holds one product's scratch: packed B, a zero-padded copy of A's
// last partial row panel, and a full register block for C's edge tiles.
type work[T float] struct {
	b, a, c []T
}

func grow[T float](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

var pools [2]sync.Pool // float32, float64

func poolOf[T float]() *sync.Pool {
	var z T
	return &pools[unsafe.Sizeof(z)/8]
}

func getWork[T float]() *work[T] {
	if w, ok := poolOf[T]().Get().(*work[T]); ok {
		return w
	}
	return new(work[T])
}

// gemm is C = alpha·op(A)·op(B) + beta·C for row-major operands whose
// arguments Sgemm/Dgemm have checked. Element (i, p) of op(A) is
// a[i·rsa + p·csa].
func gemm[T float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if m == 0 || n == 0 || ((alpha == 0 || k == 0) && beta == 1) {
		return
	}
	if alpha == 0 || k == 0 {
		scale(m, n, beta, c, ldc)
		return
	}
	if beta != 0 && beta != 1 {
		scale(m, n, beta, c, ldc)
		beta = 1
	}
	split(microFor[T](), workers(m, n, k), tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// serial is gemm's product for beta 0 or 1, k > 0, alpha ≠ 0, in the
// calling goroutine, with micro-kernel mk.
func serial[T float](mk micro, tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	rsa, csa := lda, 1
	if tA {
		rsa, csa = 1, lda
	}
	nr := mk.nr
	w := getWork[T]()
	defer poolOf[T]().Put(w)
	w.c = grow(w.c, mk.mr*nr)
	// k in equal blocks: 784 is four blocks of 196, not three of 256 and
	// one of 16 that would load and store C for little work.
	kcEven := (k + (k+kcBlock-1)/kcBlock - 1) / ((k + kcBlock - 1) / kcBlock)
	for jc := 0; jc < n; jc += ncBlock {
		nc := min(ncBlock, n-jc)
		for pc := 0; pc < k; pc += kcEven {
			kc := min(kcEven, k-pc)
			bs := bSource[T]{nc: nc, kc: kc, nr: nr, tailNr: nr}
			full := nc / nr * nr // columns in full-width panels
			if mk.half != 0 && full < nc && 2*(nc-full) <= nr {
				bs.tailNr = nr / 2 // the half-width kernel takes the last panel
			}
			if !tB && m <= inPlaceBRows {
				// few rows to amortise packing over: the kernel reads B's
				// full-width panels in place, and the last one too when the
				// half-width kernel takes it (it reads only its columns);
				// else only the last one is packed
				bs.b, bs.ldb = b[pc*ldb+jc:], ldb
				bs.tailInPlace = bs.tailNr < nr
				if full < nc && !bs.tailInPlace {
					w.b = grow(w.b, kc*bs.tailNr)
					packB(false, b, ldb, pc, kc, jc+full, nc-full, bs.tailNr, w.b)
				}
			} else {
				w.b = grow(w.b, kc*(full+bs.tailNr))
				if fuseBPack && mk.id == k8x32 && !tB && m >= mk.mr {
					// the full panels are packed by the first row
					// block's kernel calls as they read them (fusedB)
					bs.src, bs.ldb = b[pc*ldb+jc:], ldb
				} else {
					packB(tB, b, ldb, pc, kc, jc, full, nr, w.b)
				}
				if full < nc {
					packB(tB, b, ldb, pc, kc, jc+full, nc-full, bs.tailNr, w.b[full*kc:])
				}
			}
			bs.packed = w.b
			// beta = 0: the first k block stores over C without reading it
			add := beta != 0 || pc > 0
			// a transposed A is worth packing when enough B panels reuse it
			// and its in-place reads are costly
			packA := tA && nc >= packAColumns && lda >= packALda && kc >= packAKc
			for ic := 0; ic < m; ic += mcBlock {
				mc := min(mcBlock, m-ic)
				block(mk, w, &bs, mc, alpha, a[ic*rsa+pc*csa:], rsa, csa, packA, c[ic*ldc+jc:], ldc, add)
				bs.src = nil // packed now
			}
		}
	}
}

// inPlaceBRows is the most rows of C for which an untransposed B is read
// in place rather than packed: packing costs as much as a product with a
// few dozen rows, and B's rows stream well enough from L2.
const inPlaceBRows = 64

// When a transposed A is packed. In place, each p of a register block's
// rows is a different cache line, lda elements after the last. Packing
// pays only when enough B panels reuse the block (n ≥ packAColumns), the
// lines are far apart (lda ≥ packALda) and a k block has many of them (kc
// ≥ packAKc). Measured with both kernels: the models' transposed products
// (lda = 64, 256; or kc = 32 at lda = 784) run 5-30% faster in place,
// 1024×256×1024 and 1024³ (lda = 1024, kc = 256) 7-20% faster packed.
const (
	packAColumns = 128
	packALda     = 512
	packAKc      = 128
)

// bSource is where the kernel finds the kc×nc block of op(B): the packed
// panels, or B itself (b, ldb) with a partial last panel packed unless
// tailInPlace. A partial last panel that the half-width kernel takes is
// packed tailNr = nr/2 wide: packing it nr wide copied as many zeros as
// values, and for products of 10 or 16 columns the copy cost as much as
// the product.
//
// src, where set, is B itself (at stride ldb) for full panels not yet
// packed: the block's first row of register blocks reads each from there
// with kernel8x32p, which packs it into packed on the way (the pack and
// the first product in one pass), and the later rows read it packed.
type bSource[T float] struct {
	packed      []T
	b, src      []T
	ldb         int
	nc, kc, nr  int
	tailNr      int
	tailInPlace bool
}

// panel returns the panel at column jr and its row stride.
func (s *bSource[T]) panel(jr int) (*T, int) {
	last := jr+s.nr > s.nc
	switch {
	case s.b == nil && !last:
		return &s.packed[jr*s.kc], s.nr
	case s.b == nil:
		return &s.packed[jr*s.kc], s.tailNr
	case !last || s.tailInPlace:
		return &s.b[jr], s.ldb
	}
	return &s.packed[0], s.tailNr
}

func roundUp(x, to int) int { return (x + to - 1) / to * to }

// block multiplies an mc×kc block of A (at a, strides rsa/csa) by the
// kc×nc block of B that bs describes into the mc×nc block of C at c. A
// transposed A (rsa = 1) is packed first: its six elements per p sit in a
// different cache line for every p, and kc lines of A beside B's panel
// would crowd L1. Otherwise only a last partial row panel is packed.
func block[T float](mk micro, w *work[T], bs *bSource[T], mc int, alpha T, a []T, rsa, csa int, packAll bool, c []T, ldc int, add bool) {
	mr, nr, kc, nc := mk.mr, bs.nr, bs.kc, bs.nc
	full := mc / mr * mr
	if packAll {
		full = 0
	}
	// a transposed A to pack is packed by the first panel's kernel calls
	// (kernel8x32a) as they read it, but for its first register block
	// when B's first row block is being packed too, and a partial last one
	fuseA := packAll && fuseAPack && rsa == 1 && mk.id == k8x32 && nc >= nr
	if full < mc {
		w.a = grow(w.a, roundUp(mc-full, mr)*kc)
		if !fuseA {
			packA(mr, a[full*rsa:], rsa, csa, mc-full, kc, w.a)
		} else {
			if bs.src != nil {
				packA(mr, a, rsa, csa, min(mr, mc), kc, w.a)
			}
			if whole := mc / mr * mr; whole < mc {
				packA(mr, a[whole*rsa:], rsa, csa, mc-whole, kc, w.a[whole*kc:])
			}
		}
	}
	for jr := 0; jr < nc; jr += nr {
		nw := min(nr, nc-jr)
		bp, ldb := bs.panel(jr)
		id, kw := mk.id, nr
		if mk.half != 0 && 2*nw <= nr {
			id, kw = mk.half, nr/2
		}
		for ir := 0; ir < mc; ir += mr {
			var pa *T
			rs, cs := rsa, csa
			if ir < full {
				pa = &a[ir*rsa]
			} else {
				pa, rs, cs = &w.a[(ir-full)*kc], 1, mr
			}
			ci := ir*ldc + jr
			rows := min(mr, mc-ir)
			if rows == mr && (nw == kw || id == k8x16) {
				if ir == 0 && bs.src != nil && nw == nr {
					kernelPacking(kc, pa, rs, cs, &bs.src[jr], bs.ldb, &c[ci], ldc, alpha, add, bp)
					continue
				}
				if jr == 0 && fuseA && (ir > 0 || bs.src == nil) {
					kernelPackingA(kc, &a[ir*rsa], rsa, csa, bp, ldb, &c[ci], ldc, alpha, add, pa)
					continue
				}
				kernel(id, nw, kc, pa, rs, cs, bp, ldb, &c[ci], ldc, alpha, add)
				continue
			}
			// An edge tile: the kernel fills a full register block, and
			// only the part inside C is written, with the kernel's
			// rounding (alpha·AB rounded, then added).
			kw := kw
			if id == mk.half {
				kw = nw // the half-width kernel reads only the panel's columns of B
			}
			kernel(id, kw, kc, pa, rs, cs, bp, ldb, &w.c[0], kw, 1, false)
			for r := 0; r < rows; r++ {
				cr := c[ci+r*ldc : ci+r*ldc+nw]
				tr := w.c[r*kw : r*kw+nw]
				if add {
					for j := range cr {
						cr[j] += T(alpha * tr[j])
					}
				} else {
					for j := range cr {
						cr[j] = T(alpha * tr[j])
					}
				}
			}
		}
	}
}

// scale is C = beta·C; beta = 0 zeroes C whatever it held (NaN included).
func scale[T float](m, n int, beta T, c []T, ldc int) {
	for i := 0; i < m; i++ {
		r := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(r)
			continue
		}
		for j := range r {
			r[j] *= beta
		}
	}
}
