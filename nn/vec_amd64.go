//go:build amd64 && !purego

package nn

import (
	"math"
	"unsafe"

	"github.com/normtop/normtop/internal/simd"
)

// useAVX selects the kernels of vec_amd64.s for float32 data. Go does not
// vectorise, and the trainer's softmax, log-sum-exp, bias and Adam loops
// were, after the GEMM, most of a step (math.Exp alone 12-14%). The exp
// kernel uses FMA and AVX2's integer lanes, so both are required. Tests
// switch it off to compare with the Go loops.
var useAVX = simd.AVX2FMA

// useAVX512 selects the AVX-512F kernels where there are any (Adam's,
// exp's: vec_exp512_amd64.s);
// tests switch it off to compare them with the AVX2 kernels and the Go
// loops.
var useAVX512 = simd.AVX2FMA && simd.AVX512F

// The kernels; see vec_amd64.s for what each requires of the lengths.

//go:noescape
func expShiftSum32AVX(x, y []float32, s float32) float64

//go:noescape
func max32AVX(x []float32) float32

//go:noescape
func expScaleSub32AVX(x, y []float32, s, a, b float32)

//go:noescape
func expShiftSum32AVX512(x, y []float32, s float32) float64

//go:noescape
func expScaleSub32AVX512(x, y []float32, s, a, b float32)

//go:noescape
func scale32AVX(x []float32, a float32)

//go:noescape
func maxSum32AVX(x []float32) (m float32, s float64)

//go:noescape
func scaleSub32AVX(x []float32, a, b float32)

//go:noescape
func addRow32AVX(x, b, out []float32)

//go:noescape
func colAdd32AVX(g []float32, acc []float64)

//go:noescape
func dot32AVX(a, b []float32) float64

//go:noescape
func softmaxGrad32AVX(p, d []float32, dot, sc float64)

//go:noescape
func reluMask32AVX(x, v, out []float32)

//go:noescape
func mulMask32AVX(x, m, out []float32)

//go:noescape
func adam32AVX(p, g []float32, m, v []float64, k *adamConsts)

//go:noescape
func adam32AVX512(p, g []float32, m, v []float64, k *adamConsts)

// is32 reports whether the float32 kernels apply to T.
func is32[T Float]() bool {
	var z T
	return useAVX && unsafe.Sizeof(z) == 4
}

// f32 views a float32-shaped slice as []float32 (only called when is32).
func f32[T Float](v []T) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

// The wrappers below return ok = false (nothing done) when the kernels do
// not apply, or k, the number of leading elements they did; the callers in
// vec.go run the Go loop on the rest.

func expShiftSumFast[T Float](x, y []T, s T) (sum float64, ok bool) {
	if !is32[T]() {
		return 0, false
	}
	if y != nil {
		y = y[:len(x)]
	}
	if useAVX512 {
		return expShiftSum32AVX512(f32(x), f32(y), float32(s)), true
	}
	return expShiftSum32AVX(f32(x), f32(y), float32(s)), true
}

func expScaleSubFast[T Float](x, y []T, s, a, b T) bool {
	if !is32[T]() {
		return false
	}
	if useAVX512 {
		expScaleSub32AVX512(f32(x), f32(y[:len(x)]), float32(s), float32(a), float32(b))
		return true
	}
	expScaleSub32AVX(f32(x), f32(y[:len(x)]), float32(s), float32(a), float32(b))
	return true
}

func maxOfFast[T Float](x []T) (m T, ok bool) {
	if !is32[T]() {
		return 0, false
	}
	return T(max32AVX(f32(x))), true
}

func scaleFast[T Float](x []T, a T) int {
	k := len(x) &^ 7
	if k == 0 || !is32[T]() {
		return 0
	}
	scale32AVX(f32(x)[:k], float32(a))
	return k
}

func scaleSubFast[T Float](x []T, a, b T) int {
	k := len(x) &^ 7
	if k == 0 || !is32[T]() {
		return 0
	}
	scaleSub32AVX(f32(x)[:k], float32(a), float32(b))
	return k
}

func addRowFast[T Float](x, b, out []T) int {
	k := len(x) &^ 7
	if k == 0 || !is32[T]() {
		return 0
	}
	addRow32AVX(f32(x)[:k], f32(b)[:k], f32(out)[:k])
	return k
}

func reluMaskFast[T Float](x, v, out []T) int {
	k := len(x) &^ 7
	if k == 0 || !is32[T]() {
		return 0
	}
	reluMask32AVX(f32(x)[:k], f32(v)[:k], f32(out)[:k])
	return k
}

// mulMaskFast is dropout's x·mask on the float32 path (no generic T: the
// mask is float32 whatever the data).
func mulMaskFast(x, m, out []float32) int {
	k := len(x) &^ 7
	if k == 0 || !useAVX {
		return 0
	}
	mulMask32AVX(x[:k], m[:k], out[:k])
	return k
}

func colAddFast[T Float](g []T, acc []float64) int {
	k := len(g) &^ 7
	if k == 0 || !is32[T]() {
		return 0
	}
	colAdd32AVX(f32(g)[:k], acc[:k])
	return k
}

func adamFast[T Float](p, g []T, m, v []float64, k *adamConsts) int {
	if !is32[T]() {
		return 0
	}
	if n := len(p) &^ 7; useAVX512 && n > 0 {
		adam32AVX512(f32(p)[:n], f32(g)[:n], m[:n], v[:n], k)
		return n
	}
	n := len(p) &^ 3
	if n > 0 {
		adam32AVX(f32(p)[:n], f32(g)[:n], m[:n], v[:n], k)
	}
	return n
}

func sumSqFast[T Float](x []T) (k int, s float64) {
	if k = len(x) &^ 15; k == 0 || !is32[T]() {
		return 0, 0
	}
	return k, simd.SumSqDev32(f32(x)[:k], 0) // x−0 is x: Σx², the reduction norm's statistics use
}

func maxSumFast[T Float](x []T) (k int, m T, s float64) {
	if k = len(x) &^ 15; k == 0 || !is32[T]() {
		return 0, T(math.Inf(-1)), 0
	}
	m32, s := maxSum32AVX(f32(x)[:k])
	return k, T(m32), s
}

func sumFast[T Float](x []T) (k int, s float64) {
	if k = len(x) &^ 15; k == 0 || !is32[T]() {
		return 0, 0
	}
	return k, simd.Sum32(f32(x)[:k])
}

func dotFast[T Float](a, b []T) (k int, s float64) {
	if k = len(a) &^ 7; k == 0 || !is32[T]() {
		return 0, 0
	}
	return k, dot32AVX(f32(a)[:k], f32(b)[:k])
}

func softmaxGradFast[T Float](p, d []T, dot, sc float64) int {
	k := len(p) &^ 7
	if k == 0 || !is32[T]() {
		return 0
	}
	softmaxGrad32AVX(f32(p)[:k], f32(d)[:k], dot, sc)
	return k
}
