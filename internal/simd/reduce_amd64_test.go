//go:build amd64 && !purego

package simd

import (
	"math"
	"math/rand"
	"testing"
)

// laneSum is the kernels' own order in Go: element i into lane i mod 16
// (four accumulators of four lanes), term(x) added by add, then the lanes
// combined as the kernels do: accumulators (0+1)+(2+3) lane-wise, then
// the four lanes as (l0+l2)+(l1+l3).
func laneSum(x []float32, add func(acc, v float64) float64) float64 {
	var lane [16]float64
	for i, v := range x {
		lane[i%16] = add(lane[i%16], float64(v))
	}
	var l [4]float64
	for j := range l {
		l[j] = (lane[j] + lane[4+j]) + (lane[8+j] + lane[12+j])
	}
	return (l[0] + l[2]) + (l[1] + l[3])
}

// TestReductionsBitExact: Sum32 and SumSqDev32 give the bits of their
// order written in Go (FMA where the kernel fuses), for lengths of 0 to 4
// blocks, μ = 0 (nn's Σx²) included.
func TestReductionsBitExact(t *testing.T) {
	if !AVXFMA {
		t.Skip("no AVX and FMA on this machine")
	}
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 16, 32, 64} {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64()*3 + 0.5)
		}
		want := laneSum(x, func(acc, v float64) float64 { return acc + v })
		if got := Sum32(x); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("n=%d: Sum32 %v, want %v", n, got, want)
		}
		for _, mu := range []float64{0, 0.37} {
			want := laneSum(x, func(acc, v float64) float64 { return math.FMA(v-mu, v-mu, acc) })
			if got := SumSqDev32(x, mu); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("n=%d μ=%v: SumSqDev32 %v, want %v", n, mu, got, want)
			}
		}
	}
}
