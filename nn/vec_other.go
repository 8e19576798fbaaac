//go:build !amd64 || purego

package nn

import "math"

// Without the amd64 kernels every loop of vec.go runs in Go: the wrappers
// decline (ok = false) or take no leading elements (k = 0).

var useAVX = false

var useAVX512 = false

func expShiftSumFast[T Float](x, y []T, s T) (sum float64, ok bool) { return 0, false }
func maxOfFast[T Float](x []T) (m T, ok bool)                       { return 0, false }
func expScaleSubFast[T Float](x, y []T, s, a, b T) bool             { return false }
func scaleFast[T Float](x []T, a T) int                             { return 0 }
func scaleSubFast[T Float](x []T, a, b T) int                       { return 0 }
func addRowFast[T Float](x, b, out []T) int                         { return 0 }
func colAddFast[T Float](g []T, acc []float64) int                  { return 0 }
func mulMaskFast(x, m, out []float32) int                           { return 0 }
func reluMaskFast[T Float](x, v, out []T) int                       { return 0 }
func adamFast[T Float](p, g []T, m, v []float64, k *adamConsts) int { return 0 }
func sumSqFast[T Float](x []T) (k int, s float64)                   { return 0, 0 }
func sumFast[T Float](x []T) (k int, s float64)                     { return 0, 0 }
func maxSumFast[T Float](x []T) (k int, m T, s float64)             { return 0, T(math.Inf(-1)), 0 }
func dotFast[T Float](a, b []T) (k int, s float64)                  { return 0, 0 }
func softmaxGradFast[T Float](p, d []T, dot, sc float64) int        { return 0 }
