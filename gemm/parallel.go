package gemm

import (
	"runtime"
	"sync"
	"unsafe"
)

// The parallel product: bands of C on long-lived helper goroutines, the
// same bits for any number of them.

// parallelFlops is the smallest product (2mnk) worth a second goroutine,
// 32 MFLOP (~0.2 ms of AVX-512 kernel time). Handing a band to a helper
// on the other core costs far more than the microsecond of starting and
// joining it: waking an idle core, and both cores' clocks dropping while
// both run 512-bit FMAs. With 2 MFLOP as the bar, the transformer's step
// at GOMAXPROCS 2 took 15.8-16.4 ms against 13.1-13.7 ms at this one and
// 11.9 ms at GOMAXPROCS 1 (one variant, BenchmarkSteps, 2-core Xeon); when
// several variants train, their goroutines fill the cores anyway.
const parallelFlops = 1 << 25

// workers is how many goroutines a product of this size gets: one per
// GOMAXPROCS, at most one per parallelFlops of work.
func workers(m, n, k int) int {
	w := 2 * float64(m) * float64(n) * float64(k) / parallelFlops
	if w < 2 {
		return 1 // runtime.GOMAXPROCS takes a lock: 6% of a 64×16×64 product
	}
	return min(runtime.GOMAXPROCS(0), int(w))
}

// split runs the product in up to w goroutines, each on its own band of
// C: rows (whole register blocks) when C is taller than wide, else
// columns (whole panels). Every element of C is computed by the same
// kernel steps in the same order whichever band it falls in (the k blocks
// depend on k alone, packing copies values without arithmetic, and edge
// tiles round as the kernel does), so the result is the same bits for any
// w and any assignment of bands: the core count and the scheduler never
// show in a run. Bands go to long-lived helper goroutines (no allocation
// per product); a band no idle helper takes runs in the caller.
func split[T float](mk micro, w int, tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	unit, size := mk.mr, m
	if m < n {
		unit, size = mk.nr, n
	}
	units := (size + unit - 1) / unit
	w = min(w, units)
	if w <= 1 {
		serial(mk, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	q := helpers[T](w - 1)
	wg := wgPool.Get().(*sync.WaitGroup)
	defer wgPool.Put(wg)
	for i := 0; i < w; i++ {
		lo, hi := units*i/w*unit, min(size, units*(i+1)/w*unit)
		bd := band[T]{mk: mk, tA: tA, tB: tB, m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, beta: beta, c: c, ldc: ldc, done: wg}
		if m >= n { // rows lo..hi: A's rows and C's rows
			bd.m, bd.c = hi-lo, c[lo*ldc:]
			if tA {
				bd.a = a[lo:]
			} else {
				bd.a = a[lo*lda:]
			}
		} else { // columns lo..hi: B's columns and C's columns
			bd.n, bd.c = hi-lo, c[lo:]
			if tB {
				bd.b = b[lo*ldb:]
			} else {
				bd.b = b[lo:]
			}
		}
		wg.Add(1)
		if i < w-1 {
			select {
			case q <- bd:
				continue
			default: // no helper idle
			}
		}
		bd.run()
	}
	wg.Wait()
}

// band is one goroutine's share of a split product.
type band[T float] struct {
	mk          micro
	tA, tB      bool
	m, n, k     int
	alpha, beta T
	a, b, c     []T
	lda, ldb    int
	ldc         int
	done        *sync.WaitGroup
}

func (bd *band[T]) run() {
	serial(bd.mk, bd.tA, bd.tB, bd.m, bd.n, bd.k, bd.alpha, bd.a, bd.lda, bd.b, bd.ldb, bd.beta, bd.c, bd.ldc)
	bd.done.Done()
}

var (
	wgPool   = sync.Pool{New: func() any { return new(sync.WaitGroup) }}
	helperMu sync.Mutex
	queue32  = make(chan band[float32])
	queue64  = make(chan band[float64])
	started  [2]int // helpers started per element type
)

// helpers returns T's band queue with at least n helper goroutines
// serving it. Helpers live for the process: a few idle goroutines.
func helpers[T float](n int) chan band[T] {
	var z T
	i := unsafe.Sizeof(z) / 8
	var q chan band[T]
	if i == 0 {
		q = any(queue32).(chan band[T])
	} else {
		q = any(queue64).(chan band[T])
	}
	helperMu.Lock()
	for ; started[i] < n; started[i]++ {
		go serve(q)
	}
	helperMu.Unlock()
	return q
}

// serve is a helper goroutine: it runs the bands it receives.
func serve[T float](q chan band[T]) {
	for bd := range q {
		bd.run()
	}
}
