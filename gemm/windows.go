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
	if !useAVX512 || n < 1 || n > half || k < 1 || k > kcBlock || m < 0 {
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
