package gemm

import "fmt"

// Windows is C = Σ over s < nseg of A_s·B_s in float32, where A_s is the
// m×seglen matrix at a[s·segstride:] with row stride lda (rows may
// overlap) and B_s is rows [s·seglen, (s+1)·seglen) of the K×n matrix b,
// K = nseg·seglen: the product of a patch matrix whose rows are nseg runs
// of seglen contiguous values (a convolution's filter rows over a padded
// image, nn.ConvRows), read in place. Every element of C is one FMA chain
// over the K terms in order, the chain Sgemm gives the patch matrix
// written out when K fits one k block, so the two give the same bits.
//
// It runs on the AVX-512 half-width kernel, for n ≤ 16 and K ≤ kcBlock,
// and reports false, doing nothing, elsewhere. a must hold whole register
// blocks: the rows up to m rounded up to 8. It panics when a slice is too
// short.
func Windows(m, n, seglen, nseg, segstride int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) bool {
	const mr, half = 8, 16
	k := nseg * seglen
	if !WindowsRuns(n, k) || m < 0 {
		return false
	}
	if m == 0 {
		return true
	}
	rows := roundUp(m, mr)
	if seglen < 1 || lda < 1 || ldb < n || ldc < n || segstride < seglen ||
		len(a) < (rows-1)*lda+(nseg-1)*segstride+seglen || len(b) < (k-1)*ldb+n || len(c) < (m-1)*ldc+n {
		panic(fmt.Sprintf("gemm.Windows: %d rows of %d segments of %d (stride %d) at row stride %d, n %d: slices of %d, %d, %d elements (ldb %d, ldc %d)",
			m, nseg, seglen, segstride, lda, n, len(a), len(b), len(c), ldb, ldc))
	}
	cols, jump := uint16(1)<<n-1, segstride-seglen
	full := m / mr * mr
	for ir := 0; ir < full; ir += mr {
		kernel8x16seg(seglen, &a[ir*lda], lda, 1, &b[0], ldb, &c[ir*ldc], ldc, 1, false, cols, nseg, jump)
	}
	if full < m { // the last rows through a register block of scratch
		var t [mr * half]float32
		kernel8x16seg(seglen, &a[full*lda], lda, 1, &b[0], ldb, &t[0], half, 1, false, cols, nseg, jump)
		for r := 0; r < m-full; r++ {
			copy(c[(full+r)*ldc:][:n], t[r*half:][:n])
		}
	}
	return true
}

// HasWindowKernels says WindowsT and WindowsTRuns run here (AVX-512).
func HasWindowKernels() bool { return useAVX512 }

// WindowsRuns says Windows runs here for n columns and K = nseg·seglen.
func WindowsRuns(n, k int) bool { return useAVX512 && n >= 1 && n <= 16 && k >= 1 && k <= kcBlock }

// WindowsT is C = Aᵀ·B in float32 for an m×kr A whose rows start lda
// apart and may overlap (a convolution's patch matrix of one filter row
// over a padded image, read in place) and an m×n B, into the kr×n C: the
// filters' gradient of nn.ConvRows, a product with few rows and columns
// and a long k (m, every window of the batch). It gives the bits of
// Overlapping(true, false, kr, n, m, 1, a, lda, b, ldb, 0, c, ldc): the
// same k blocks (m in equal blocks of at most kcBlock), in each one FMA
// chain per element from zero, the first block stored and the others
// added. It is WindowsTRuns with one run per k block.
//
// It runs on AVX-512 and reports false, doing nothing, elsewhere. a must
// hold whole register blocks: from the last row's start, kr rounded up to
// 8 values. It panics when a slice is too short.
func WindowsT(m, kr, n int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) bool {
	if !useAVX512 || n < 1 || kr < 1 || m < 0 {
		return false
	}
	if m == 0 { // an empty sum, as Overlapping's beta = 0 gives
		if len(c) < (kr-1)*ldc+n || ldc < n {
			panic(fmt.Sprintf("gemm.WindowsT: C of %d elements for %d×%d at stride %d", len(c), kr, n, ldc))
		}
		scale(kr, n, 0, c, ldc)
		return true
	}
	kc := KBlock(m)
	var runs [1]Run
	var ends [1]int
	for p0 := 0; p0 < m; p0 += kc {
		runs[0], ends[0] = Run{A: p0 * lda, B: p0 * ldb, N: min(kc, m-p0)}, 1
		WindowsTRuns(kr, n, a, lda, b, ldb, runs[:], ends[:], c, ldc, p0 > 0)
	}
	return true
}

// KBlock is the length of the k blocks the package's products take for a
// k of k: k in equal blocks of at most kcBlock (784 is four blocks of 196).
// Each element of C is one FMA chain per block, so a product that is to
// give Sgemm's or Overlapping's bits sums in these blocks.
func KBlock(k int) int {
	nb := (k + kcBlock - 1) / kcBlock
	return (k + nb - 1) / nb
}

// Run is a run of consecutive rows of a WindowsTRuns product: N rows of A
// from element A of a on (lda apart) with N rows of B from element B of b
// on (ldb apart).
type Run struct{ A, B, N int }

// WindowsTRuns is WindowsT over rows that need not be consecutive: C (+)=
// Σ over chains of Σ over the chain's runs of A_runᵀ·B_run, chain i being
// runs[ends[i-1]:ends[i]] (the first from runs[0]). Each element of C is,
// per chain, one FMA chain from zero over the chain's rows in order (zero
// for a chain without runs), stored over C for the first chain unless add
// and added to C for every other. With the chains of a product's k blocks
// it gives Sgemm's or Overlapping's bits over those rows alone: the
// filters' gradient of a convolution from its valid windows only, with no
// copy of the output's gradient onto every window of the padded image,
// and of a strided one, whose windows are no contiguous rows of A.
//
// C's rows sit in registers, 24 at a time (at most 8 columns: two rows to
// a register, half the FMAs), its columns in panels of 16, and A is read
// in place, one B row per window. It runs on AVX-512 and reports false,
// doing nothing, elsewhere. a must hold whole register blocks: from each
// run's last row's start, kr rounded up to 8 values; every run must have
// N ≥ 1. It panics when a slice is too short or a run is empty.
func WindowsTRuns(kr, n int, a []float32, lda int, b []float32, ldb int, runs []Run, ends []int, c []float32, ldc int, add bool) bool {
	const half, rmax = 16, 24
	if !useAVX512 || n < 1 || kr < 1 {
		return false
	}
	if lda < 1 || ldb < n || ldc < n || len(c) < (kr-1)*ldc+n {
		panic(fmt.Sprintf("gemm.WindowsTRuns: %d×%d at row strides %d, %d, %d: C of %d elements", kr, n, lda, ldb, ldc, len(c)))
	}
	for _, r := range runs {
		if r.N < 1 || r.A < 0 || r.B < 0 || len(a) < r.A+(r.N-1)*lda+roundUp(kr, 8) || len(b) < r.B+(r.N-1)*ldb+n {
			panic(fmt.Sprintf("gemm.WindowsTRuns: run %+v of %d×%d at row strides %d, %d: slices of %d, %d elements", r, kr, n, lda, ldb, len(a), len(b)))
		}
	}
	var t [rmax * half]float32
	start := 0
	for i, end := range ends {
		if end < start || end > len(runs) {
			panic(fmt.Sprintf("gemm.WindowsTRuns: chain %d ends at run %d of %d, after %d", i, end, len(runs), start))
		}
		var rp *Run
		if end > start {
			rp = &runs[start]
		}
		nr, addc := end-start, add || i > 0
		for j0 := 0; j0 < n; j0 += half {
			nw := min(half, n-j0)
			cols := uint16(1)<<nw - 1
			for r0 := 0; r0 < kr; r0 += rmax {
				rows := min(rmax, kr-r0)
				if rows%8 == 0 {
					kernelTNFor(rows, nw, rp, nr, &a[r0], lda, &b[j0], ldb, &c[r0*ldc+j0], ldc, addc, cols)
					continue
				}
				// the last rows through a register block of scratch, with
				// the kernel's rounding (the chain, then added to C)
				kernelTNFor(rows, nw, rp, nr, &a[r0], lda, &b[j0], ldb, &t[0], half, false, cols)
				for r := 0; r < rows; r++ {
					cr, tr := c[(r0+r)*ldc+j0:][:nw], t[r*half:][:nw]
					if addc {
						for j := range cr {
							cr[j] += tr[j]
						}
					} else {
						copy(cr, tr)
					}
				}
			}
		}
		start = end
	}
	return true
}

// kernelTNFor runs the kernelTN for rows of C rounded up to 8 and n
// columns: at most 8 columns, two rows to a register (kernelTNP, half the
// FMAs). A switch, not a func value: through one, the compiler cannot
// see that the kernels keep no pointer, and the callers' scratch escaped
// to the heap on every call.
func kernelTNFor(rows, n int, runs *Run, nruns int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16) {
	switch {
	case rows <= 8 && n <= 8:
		kernelTNP8(runs, nruns, a, lda, b, ldb, c, ldc, add, cols)
	case rows <= 8:
		kernelTN8(runs, nruns, a, lda, b, ldb, c, ldc, add, cols)
	case rows <= 16 && n <= 8:
		kernelTNP16(runs, nruns, a, lda, b, ldb, c, ldc, add, cols)
	case rows <= 16:
		kernelTN16(runs, nruns, a, lda, b, ldb, c, ldc, add, cols)
	case n <= 8:
		kernelTNP24(runs, nruns, a, lda, b, ldb, c, ldc, add, cols)
	default:
		kernelTN24(runs, nruns, a, lda, b, ldb, c, ldc, add, cols)
	}
}
