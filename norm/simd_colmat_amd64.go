//go:build amd64 && !purego

package norm

import (
	"math"
	"unsafe"
)

// The whole-matrix kernels of simd_colmat_amd64.s: the per-feature
// family's passes over a batch of plain rows (no padding mask, no
// GroupScaling) in one call each, with the Go loops' bits.

//go:noescape
func colAccumMat32(x []float32, d int, s1, s2 []float64)

//go:noescape
func colAccumDevMat32(x []float32, d int, mean, vs []float64)

//go:noescape
func colWriteMat32(x []float32, d int, mu, a, gam, bet []float64, y []float32)

//go:noescape
func colParamGradsMat32(x, g []float32, d int, mu, a, dgam, dbet []float64)

//go:noescape
func tapAccumMat32(x []float32, d int, mean, psi []float64) (sum, maxAbs float64)

//go:noescape
func tapDevMat32(x []float32, d int, mu float64, mean, vs []float64) (ss float64)

//go:noescape
func colWriteMatFMA32(x []float32, d int, mu, a, gam, bet []float64, y []float32)

//go:noescape
func colAccumDevMatFMA32(x []float32, d int, mean, vs []float64)

//go:noescape
func tapAccumMatFMA32(x []float32, d int, mean, psi []float64) (sum, maxAbs float64)

//go:noescape
func tapDevMatFMA32(x []float32, d int, mu float64, mean, vs []float64) (ss float64)

//go:noescape
func momentsMat32(a, b []float32, d int, inv float64) (am, av, bm, bv float64)

//go:noescape
func moments2Mat32(a, b []float32, d int, inv float64) (am, av, bm, bv float64)

//go:noescape
func colGradOutMat32(x, g []float32, d int, gam, mu, a, cmu, cvar []float64, dx []float32, gv []float64)

// colMat says the whole-matrix kernels take x, rows of d features: T is
// float32, the AVX kernels are on and d is a multiple of 4.
func colMat[T float](x []T, d int) bool {
	var z T
	return useAVX && unsafe.Sizeof(z) == 4 && d > 0 && d%4 == 0 && len(x)%d == 0
}

// colMatGo says colMat holds and the per-row path runs all of a row in Go
// (d < 16: the per-row AVX kernels, which use FMA, take none of it), so a
// whole-matrix kernel in place of a Go row loop keeps the bits of the
// kernels that use FMA on wider rows.
func colMatGo[T float](x []T, d int) bool { return colMat(x, d) && d < 16 }

// colMatFMA says the whole-matrix FMA kernels take x: colMat holds and d
// is a multiple of 16, so the per-row path runs all of every row in the
// per-row FMA kernels, whose bits these keep.
func colMatFMA[T float](x []T, d int) bool { return colMat(x, d) && d%16 == 0 }

// colWriteMatFMA is colWriteRows over plain rows where colMatFMA holds.
func colWriteMatFMA[T float](x []T, d int, mu, a, gam, bet []float64, y []T) {
	colWriteMatFMA32(f32(x), d, mu[:d], a[:d], gam[:d], bet[:d], f32(y)[:len(x)])
}

// colAccumDevMatFMA is bnStats' row loop of colAccumDev over plain rows
// where colMatFMA holds.
func colAccumDevMatFMA[T float](x []T, d int, mean, vs []float64) {
	colAccumDevMatFMA32(f32(x), d, mean[:d], vs[:d])
}

// tapAccumMatFMA is statTapSums' row loop over plain rows where colMatFMA
// holds, in one call; where x holds a NaN or both infinities (a NaN sum)
// it reports false, having added to mean and psi, and the caller runs the
// row loop on fresh sums (statTapSums: its max|x| rescans a row).
func tapAccumMatFMA[T float](x []T, d int, mean, psi []float64) (sum, maxAbs float64, ok bool) {
	sum, maxAbs = tapAccumMatFMA32(f32(x), d, mean[:d], psi[:d])
	return sum, maxAbs, !math.IsNaN(sum)
}

// tapDevMatFMA is statTapDevs' row loop over plain rows where colMatFMA
// holds, in one call.
func tapDevMatFMA[T float](x []T, d int, mu float64, mean, vs []float64) float64 {
	return tapDevMatFMA32(f32(x), d, mu, mean[:d], vs[:d])
}

func colAccumMat[T float](x []T, d int, s1, s2 []float64) {
	colAccumMat32(f32(x), d, s1[:d], s2[:d])
}

func colAccumDevMat[T float](x []T, d int, mean, vs []float64) {
	colAccumDevMat32(f32(x), d, mean[:d], vs[:d])
}

func colWriteMat[T float](x []T, d int, mu, a, gam, bet []float64, y []T) {
	colWriteMat32(f32(x), d, mu[:d], a[:d], gam[:d], bet[:d], f32(y)[:len(x)])
}

func colParamGradsMat[T float](x, g []T, d int, mu, a, dgam, dbet []float64) {
	colParamGradsMat32(f32(x), f32(g)[:len(x)], d, mu[:d], a[:d], dgam[:d], dbet[:d])
}

// colGradOutMat writes dx for every row and, where gv is not empty, each
// row's ‖g_σ²,i‖² into gv (len(gv) = rows).
func colGradOutMat[T float](x, g []T, d int, gam, mu, a, cmu, cvar []float64, dx []T, gv []float64) {
	if len(gv) != 0 && len(gv) != len(x)/d {
		panic("norm: colGradOutMat: gv is not one value per row")
	}
	colGradOutMat32(f32(x), f32(g)[:len(x)], d, gam[:d], mu[:d], a[:d], cmu[:d], cvar[:d], f32(dx)[:len(x)], gv)
}

// tapAccumMat is statTapSums over plain rows: mean += x, psi += x² per
// feature; Σx and max|x| (NaN when x holds a NaN, as the Go loop gives).
func tapAccumMat[T float](x []T, d int, mean, psi []float64) (sum, maxAbs float64) {
	sum, maxAbs = tapAccumMat32(f32(x), d, mean[:d], psi[:d])
	if math.IsNaN(sum) { // a NaN, or +Inf and -Inf: rescan for max|x|
		maxAbs = 0
		for _, v := range x {
			if a := math.Abs(float64(v)); a > maxAbs || a != a {
				maxAbs = a
			}
		}
	}
	return sum, maxAbs
}

// tapDevMat is statTapDevs over plain rows: vs += (x - mean)² per
// feature, and Σ(x - mu)².
func tapDevMat[T float](x []T, d int, mu float64, mean, vs []float64) float64 {
	return tapDevMat32(f32(x), d, mu, mean[:d], vs[:d])
}

// momentsMat is the Theorem-1 taps' sums over plain rows of dx and g:
// Σ over rows of rowMoments2(dx row, g row), in row order, with its bits.
// It reports false, doing nothing, where no whole-matrix kernel takes the
// rows: the kernels divide by d as a product with 1/d, the same bits only
// for d a power of two; d < 16 (momentsMat32: rowMoments' sums, which
// rowMoments2 takes there) or a multiple of 16 (moments2Mat32:
// moments2_32AVX's).
func momentsMat[T float](dx, g []T, d int) (momentSums, bool) {
	if !colMat(dx, d) || d&(d-1) != 0 || (d >= 16 && d%16 != 0) {
		return momentSums{}, false
	}
	kern := momentsMat32
	if d >= 16 {
		kern = moments2Mat32
	}
	am, av, bm, bv := kern(f32(dx), f32(g)[:len(dx)], d, 1/float64(d))
	return momentSums{am, av, bm, bv}, true
}
