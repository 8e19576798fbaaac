package gemm

import (
	"sync"
	"unsafe"
)

type float interface{ float32 | float64 }

// Block sizes. A kc×16 float32 panel of packed B (16 KiB at kc = 256) stays
// in the 32 KiB L1 while the kernel sweeps an mc-row block of A (96 KiB,
// in L2); the packed kc×nc block of B (1.5 MiB) lives in L2/L3. The
// trainer's products (k ≤ 1024, n ≤ 1024) mostly fit one block of each.
const (
	mr      = 6 // rows of the register block
	kcBlock = 256
	mcBlock = 16 * mr
	ncBlock = 1536 // a multiple of both panel widths
)

// panelWidth is the register block's width: 64 bytes, 16 float32 or 8 float64.
func panelWidth[T float]() int {
	var z T
	return 64 / int(unsafe.Sizeof(z))
}

// kernel runs the micro-kernel of T's width.
func kernel[T float](kc int, a *T, rsa, csa int, b, c *T, ldc int, alpha T, add bool) {
	var z T
	if unsafe.Sizeof(z) == 4 {
		kernel6x16(kc, (*float32)(unsafe.Pointer(a)), rsa, csa, (*float32)(unsafe.Pointer(b)),
			(*float32)(unsafe.Pointer(c)), ldc, float32(alpha), add)
		return
	}
	kernel6x8(kc, (*float64)(unsafe.Pointer(a)), rsa, csa, (*float64)(unsafe.Pointer(b)),
		(*float64)(unsafe.Pointer(c)), ldc, float64(alpha), add)
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
// a[i·rsa + p·csa]; the kernel reads A in place through those strides.
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
	rsa, csa := lda, 1
	if tA {
		rsa, csa = 1, lda
	}
	nr := panelWidth[T]()
	w := getWork[T]()
	defer poolOf[T]().Put(w)
	w.c = grow(w.c, mr*nr)
	for jc := 0; jc < n; jc += ncBlock {
		nc := min(ncBlock, n-jc)
		for pc := 0; pc < k; pc += kcBlock {
			kc := min(kcBlock, k-pc)
			w.b = grow(w.b, kc*roundUp(nc, nr))
			packB(tB, b, ldb, pc, kc, jc, nc, nr, w.b)
			// beta = 0: the first k block stores over C without reading it
			add := beta != 0 || pc > 0
			for ic := 0; ic < m; ic += mcBlock {
				mc := min(mcBlock, m-ic)
				block(w, mc, nc, kc, alpha, a[ic*rsa+pc*csa:], rsa, csa, c[ic*ldc+jc:], ldc, add)
			}
		}
	}
}

func roundUp(x, to int) int { return (x + to - 1) / to * to }

// block multiplies an mc×kc block of A (at a, strides rsa/csa) by the
// packed kc×nc block of B in w.b into the mc×nc block of C at c.
func block[T float](w *work[T], mc, nc, kc int, alpha T, a []T, rsa, csa int, c []T, ldc int, add bool) {
	nr := panelWidth[T]()
	full := mc / mr * mr
	if full < mc {
		w.a = grow(w.a, mr*kc)
		packEdgeA(a[full*rsa:], rsa, csa, mc-full, kc, w.a)
	}
	for jr := 0; jr < nc; jr += nr {
		nw := min(nr, nc-jr)
		bp := &w.b[jr*kc]
		for ir := 0; ir < mc; ir += mr {
			var pa *T
			rs, cs := rsa, csa
			if ir < full {
				pa = &a[ir*rsa]
			} else {
				pa, rs, cs = &w.a[0], 1, mr
			}
			ci := ir*ldc + jr
			rows := min(mr, mc-ir)
			if rows == mr && nw == nr {
				kernel(kc, pa, rs, cs, bp, &c[ci], ldc, alpha, add)
				continue
			}
			// An edge tile: the kernel fills a full register block, and
			// only the part inside C is written, with the kernel's
			// rounding (alpha·AB rounded, then added).
			kernel(kc, pa, rs, cs, bp, &w.c[0], nr, 1, false)
			for r := 0; r < rows; r++ {
				cr := c[ci+r*ldc : ci+r*ldc+nw]
				tr := w.c[r*nr : r*nr+nw]
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

// packB copies op(B)[pc:pc+kc, jc:jc+nc] into panels of nr columns, each
// kc rows of nr contiguous elements, the last one zero padded.
func packB[T float](tB bool, b []T, ldb, pc, kc, jc, nc, nr int, dst []T) {
	for jr := 0; jr < nc; jr += nr {
		nw := min(nr, nc-jr)
		pan := dst[jr*kc : jr*kc+kc*nr]
		if !tB {
			for p := 0; p < kc; p++ {
				src := b[(pc+p)*ldb+jc+jr:]
				row := pan[p*nr : p*nr+nr]
				copy(row, src[:nw])
				clear(row[nw:])
			}
			continue
		}
		// B is stored n×k: column j of op(B) is row j of B.
		for j := 0; j < nw; j++ {
			src := b[(jc+jr+j)*ldb+pc:]
			src = src[:kc]
			for p, v := range src {
				pan[p*nr+j] = v
			}
		}
		if nw < nr {
			for p := 0; p < kc; p++ {
				clear(pan[p*nr+nw : p*nr+nr])
			}
		}
	}
}

// packEdgeA copies the last rows (< mr) of an A block into an mr×kc panel,
// element (i, p) at dst[p·mr + i], the missing rows zero.
func packEdgeA[T float](a []T, rsa, csa, rows, kc int, dst []T) {
	for p := 0; p < kc; p++ {
		d := dst[p*mr : p*mr+mr]
		for i := 0; i < rows; i++ {
			d[i] = a[i*rsa+p*csa]
		}
		clear(d[rows:])
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
