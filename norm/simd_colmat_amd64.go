//go:build amd64 && !purego

package norm

import "unsafe"

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
