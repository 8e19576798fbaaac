//go:build !amd64 || purego

package norm

// Without the amd64 kernels every loop runs in Go: the wrappers take no
// leading elements (k = 0), so the callers' Go loops do all of them.

var useAVX = false

func sumOfFast[T float](x []T) (k int, s float64)                { return 0, 0 }
func sumSqDevFast[T float](x []T, mu float64) (k int, s float64) { return 0, 0 }
func lnWriteFast[T float](x []T, gam, bet []float64, mu, a float64, y []T) int {
	return 0
}
func gradSumsAffineFast[T float](x, g []T, gam []float64, mu, a float64, dgam, dbet []float64) (k int, sg, sgx float64) {
	return 0, 0, 0
}
func lnDxFast[T float](x, g []T, gam []float64, mu, a, mg, bc float64, dx []T) int { return 0 }
func pnFwdFast[T float](x []T, sc float64, acc, a, gam, bet []float64, y []T) int  { return 0 }
func pnRowGroupFast[T float](x, g []T, gam []float64, sc float64, a, ab, nu, dgam, dbet, rb []float64) (k int, dot float64) {
	return 0, 0
}
func pnDxFast[T float](x []T, rb []float64, sc, c float64, dx []T) int { return 0 }

func pnRowsFast[T float](x []T, m int) bool { return false }
func pnFwdRowFast[T float](x []T, m int, eps float64, gs, acc, a, gam, bet []float64, y []T) float64 {
	panic("norm: pnFwdRowFast without AVX kernels")
}
func pnBwdRowFast[T float](x, g []T, m int, gs, cs, w1, w2, dgxs, dbet, rb []float64, dx []T) {
	panic("norm: pnBwdRowFast without AVX kernels")
}

func tapAccumFast[T float](x []T, sc float64, mean, psi []float64) (k int, sum, maxAbs float64) {
	return 0, 0, 0
}
func colAccumDevFast[T float](x []T, sc float64, mean, vs []float64) int { return 0 }
func gpsiFast[T float](x []T, sc float64, nu, a, ab []float64) (k int, s float64) {
	return 0, 0
}

func tapRows[T float](x []T, m int) bool { return false }
func tapAccumRowFast[T float](x []T, m int, gs, mean, psi []float64) (sum, maxAbs float64) {
	panic("norm: tapAccumRowFast without AVX kernels")
}
func tapDevRowFast[T float](x []T, m int, mu float64, gs, mean, vs []float64) float64 {
	panic("norm: tapDevRowFast without AVX kernels")
}
func pnGPsi2RowFast[T float](x []T, m int, gs, w2 []float64) float64 {
	panic("norm: pnGPsi2RowFast without AVX kernels")
}
func colWriteFast[T float](x []T, sc float64, mu, a, gam, bet []float64, y []T) int { return 0 }
func rowMoments2Fast[T float](a, b []T) (ma, va, mb, vb float64, ok bool)           { return 0, 0, 0, 0, false }
