//go:build amd64 && !purego

package simd

// The reductions of reduce_amd64.s, for callers that have checked AVXFMA
// and cut x to a multiple of 16 elements (their Go loops do the rest).
// norm's row statistics use both; nn's gradient norm is SumSqDev32(x, 0).

// Sum32 is Σ x[i] in float64.
//
//go:noescape
func Sum32(x []float32) float64

// SumSqDev32 is Σ (x[i]−mu)² in float64.
//
//go:noescape
func SumSqDev32(x []float32, mu float64) float64
