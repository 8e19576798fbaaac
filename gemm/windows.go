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
// added. But where Overlapping packs A's transpose for every k block (a
// copy as large as the product at these sizes: 70% of its time at 8
// channels, 90% at one), WindowsT keeps C's rows in registers (24 at a
// time; at most 8 columns, two rows to a register) and reads A in
// place, one B row per window.
//
// It runs on AVX-512 for n ≤ 16 and reports false, doing nothing,
// elsewhere. a must hold whole register blocks: from the last row's
// start, kr rounded up to 8 values. It panics when a slice is too short.
func WindowsT(m, kr, n int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) bool {
	const half, rmax = 16, 24
	if !useAVX512 || n < 1 || n > half || kr < 1 || m < 0 {
		return false
	}
	if lda < 1 || ldb < n || ldc < n || len(c) < (kr-1)*ldc+n ||
		(m > 0 && (len(a) < (m-1)*lda+roundUp(kr, 8) || len(b) < (m-1)*ldb+n)) {
		panic(fmt.Sprintf("gemm.WindowsT: %d rows of %d at row stride %d, n %d: slices of %d, %d, %d elements (ldb %d, ldc %d)",
			m, kr, lda, n, len(a), len(b), len(c), ldb, ldc))
	}
	if m == 0 { // an empty sum, as Overlapping's beta = 0 gives
		scale(kr, n, 0, c, ldc)
		return true
	}
	cols := uint16(1)<<n - 1
	kcEven := (m + (m+kcBlock-1)/kcBlock - 1) / ((m + kcBlock - 1) / kcBlock) // serial's k blocks
	var t [rmax * half]float32
	for p0 := 0; p0 < m; p0 += kcEven {
		kc, add := min(kcEven, m-p0), p0 > 0
		ap, bp := a[p0*lda:], &b[p0*ldb]
		for r0 := 0; r0 < kr; r0 += rmax {
			rows := min(rmax, kr-r0)
			if rows%8 == 0 {
				kernelTNFor(rows, n, kc, &ap[r0], lda, bp, ldb, &c[r0*ldc], ldc, add, cols)
				continue
			}
			// the last rows through a register block of scratch, with the
			// kernel's rounding (the chain, then added to C)
			kernelTNFor(rows, n, kc, &ap[r0], lda, bp, ldb, &t[0], half, false, cols)
			for r := 0; r < rows; r++ {
				cr, tr := c[(r0+r)*ldc:][:n], t[r*half:][:n]
				if add {
					for j := range cr {
						cr[j] += tr[j]
					}
				} else {
					copy(cr, tr)
				}
			}
		}
	}
	return true
}

// kernelTNFor runs the kernelTN for rows of C rounded up to 8 and n
// columns: at most 8 columns, two rows to a register (kernelTNP, half the
// FMAs). A switch, not a func value: through one, the compiler cannot
// see that the kernels keep no pointer, and WindowsT's scratch escaped
// to the heap on every call.
func kernelTNFor(rows, n, kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool, cols uint16) {
	switch {
	case rows <= 8 && n <= 8:
		kernelTNP8(kc, a, lda, b, ldb, c, ldc, add, cols)
	case rows <= 8:
		kernelTN8(kc, a, lda, b, ldb, c, ldc, add, cols)
	case rows <= 16 && n <= 8:
		kernelTNP16(kc, a, lda, b, ldb, c, ldc, add, cols)
	case rows <= 16:
		kernelTN16(kc, a, lda, b, ldb, c, ldc, add, cols)
	case n <= 8:
		kernelTNP24(kc, a, lda, b, ldb, c, ldc, add, cols)
	default:
		kernelTN24(kc, a, lda, b, ldb, c, ldc, add, cols)
	}
}
