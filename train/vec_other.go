//go:build !amd64 || purego

package train

// Without the amd64 kernels every loop of vec.go runs in Go: the wrappers
// decline (ok = false) or take no leading elements (k = 0).

var useAVX = false

func expShiftSumFast[T float](x, y []T, s T) (sum float64, ok bool) { return 0, false }
func maxOfFast[T float](x []T) (m T, ok bool)                       { return 0, false }
func scaleFast[T float](x []T, a T) int                             { return 0 }
func addRowFast[T float](x, b, out []T) int                         { return 0 }
func colAddFast[T float](g []T, acc []float64) int                  { return 0 }
func reluMaskFast[T float](x, v, out []T) int                       { return 0 }
func adamFast[T float](p, g []T, m, v []float64, k *adamConsts) int { return 0 }
func sumSqFast[T float](x []T) (k int, s float64)                   { return 0, 0 }
func dotFast[T float](a, b []T) (k int, s float64)                  { return 0, 0 }
func softmaxGradFast[T float](p, d []T, dot, sc float64) int        { return 0 }
