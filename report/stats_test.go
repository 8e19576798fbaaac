package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func f32(xs ...float64) []float32 {
	out := make([]float32, len(xs))
	for i, x := range xs {
		out[i] = float32(x)
	}
	return out
}

// Hand-worked order statistics (type 7: h = (n−1)q).
func TestQuantileHandWorked(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    []float32
		q    float64
		want float64
	}{
		{"median odd", f32(5, 1, 3), 0.5, 3},
		{"median even: mean of the middle two", f32(4, 1, 3, 2), 0.5, 2.5},
		{"single", f32(7), 0.99, 7},
		{"min", f32(3, 1, 2), 0, 1},
		{"max", f32(3, 1, 2), 1, 3},
		// 1..100: h = 99·0.99 = 98.01 → 99 + 0.01·(100−99) = 99.01
		{"p99 of 1..100", seq(100), 0.99, 99.01},
		// 1..11: h = 10·0.99 = 9.9 → 10 + 0.9·1 = 10.9
		{"p99 of 1..11", seq(11), 0.99, 10.9},
		{"ties", f32(2, 2, 2, 9), 0.5, 2},
		{"quartile", f32(10, 20, 30, 40, 50), 0.25, 20},
	} {
		a := slices.Clone(tc.a)
		if got := quantile(a, tc.q); math.Abs(got-tc.want) > 1e-4 {
			t.Errorf("%s: quantile(%v, %v) = %v, want %v", tc.name, tc.a, tc.q, got, tc.want)
		}
	}
	if !math.IsNaN(quantile(nil, 0.5)) || !math.IsNaN(maxOf(nil)) {
		t.Error("empty input must give NaN")
	}
}

func seq(n int) []float32 {
	a := make([]float32, n)
	for i := range a {
		a[n-1-i] = float32(i + 1) // descending: selection must not rely on order
	}
	return a
}

// Selection agrees with sorting on random data with many ties.
func TestSelectMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(300)
		a := make([]float32, n)
		for i := range a {
			a[i] = float32(rng.IntN(1 + rng.IntN(50)))
		}
		s := slices.Clone(a)
		slices.Sort(s)
		k := rng.IntN(n)
		b := slices.Clone(a)
		selectK(b, k)
		if b[k] != s[k] {
			t.Fatalf("n=%d k=%d: got %v want %v", n, k, b[k], s[k])
		}
		for i := range b {
			if (i < k && b[i] > b[k]) || (i > k && b[i] < b[k]) {
				t.Fatalf("n=%d k=%d: not partitioned at %d", n, k, i)
			}
		}
	}
}

func TestSlope(t *testing.T) {
	if got := slope([]float64{0, 1, 2}, []float64{1, 3, 5}); got != 2 {
		t.Errorf("slope = %v", got)
	}
	if !math.IsNaN(slope([]float64{1}, []float64{1})) || !math.IsNaN(slope([]float64{1, 1}, []float64{1, 2})) {
		t.Error("degenerate slope must be NaN")
	}
}
