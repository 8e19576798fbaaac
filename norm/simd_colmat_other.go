//go:build !amd64 || purego

package norm

// Without the amd64 kernels the per-feature passes run their Go row loops.

func colMat[T float](x []T, d int) bool    { return false }
func colMatGo[T float](x []T, d int) bool  { return false }
func colMatFMA[T float](x []T, d int) bool { return false }

func colWriteMatFMA[T float](x []T, d int, mu, a, gam, bet []float64, y []T) {
	panic("norm: colWriteMatFMA without AVX kernels")
}
func colAccumDevMatFMA[T float](x []T, d int, mean, vs []float64) {
	panic("norm: colAccumDevMatFMA without AVX kernels")
}
func tapAccumMatFMA[T float](x []T, d int, mean, psi []float64) (sum, maxAbs float64, ok bool) {
	panic("norm: tapAccumMatFMA without AVX kernels")
}
func tapDevMatFMA[T float](x []T, d int, mu float64, mean, vs []float64) float64 {
	panic("norm: tapDevMatFMA without AVX kernels")
}

func colAccumMat[T float](x []T, d int, s1, s2 []float64) {
	panic("norm: colAccumMat without AVX kernels")
}
func colAccumDevMat[T float](x []T, d int, mean, vs []float64) {
	panic("norm: colAccumDevMat without AVX kernels")
}
func colWriteMat[T float](x []T, d int, mu, a, gam, bet []float64, y []T) {
	panic("norm: colWriteMat without AVX kernels")
}
func colParamGradsMat[T float](x, g []T, d int, mu, a, dgam, dbet []float64) {
	panic("norm: colParamGradsMat without AVX kernels")
}
func colGradOutMat[T float](x, g []T, d int, gam, mu, a, cmu, cvar []float64, dx []T, gv []float64) {
	panic("norm: colGradOutMat without AVX kernels")
}
func tapAccumMat[T float](x []T, d int, mean, psi []float64) (sum, maxAbs float64) {
	panic("norm: tapAccumMat without AVX kernels")
}
func tapDevMat[T float](x []T, d int, mu float64, mean, vs []float64) float64 {
	panic("norm: tapDevMat without AVX kernels")
}
func momentsMat[T float](dx, g []T, d int) (momentSums, bool) { return momentSums{}, false }
