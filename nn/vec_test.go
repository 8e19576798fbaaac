package nn

import (
	"math"
	"math/rand"
	"testing"
)

// withAVX runs f with the kernels of vec_amd64.s on or off and restores
// the setting.
func withAVX(on bool, f func()) {
	old := useAVX
	useAVX = on
	defer func() { useAVX = old }()
	f()
}

// vecLengths straddle the kernels' 8-lane blocks and their 16-element
// unrolling; 1003 is a long row with a tail.
var vecLengths = []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 64, 1003}

// bothPaths runs f once with the Go loops and, where the kernels exist,
// once with them.
func bothPaths(t *testing.T, f func(t *testing.T)) {
	t.Run("go", func(t *testing.T) { withAVX(false, func() { f(t) }) })
	if useAVX {
		t.Run("avx", func(t *testing.T) { withAVX(true, func() { f(t) }) })
	}
}

// ulps32 is the distance between two float32 values in units in the last
// place (0 for two NaNs, huge for a NaN against a number).
func ulps32(a, b float32) int64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxInt64
	}
	ord := func(x float32) int64 {
		u := int64(math.Float32bits(x))
		if u&(1<<31) != 0 {
			return -(u &^ (1 << 31))
		}
		return u
	}
	d := ord(a) - ord(b)
	if d < 0 {
		d = -d
	}
	return d
}

// expCases are exp's special and boundary arguments: NaN, ±Inf, overflow
// (exp(88.72) is float32's largest finite value), subnormal results
// (below −87.34), results that round to zero (below −103.97), and zero.
var expCases = []float32{
	float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
	0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 1, -1, 0.34657, -0.34657,
	10, -10, 50, -50, 88, 88.7, 88.72, 88.73, 89, 100, 1e30, math.MaxFloat32,
	-87, -87.3, -87.5, -90, -95, -100, -103, -103.9, -104, -105, -200, -1e30, -math.MaxFloat32,
}

// TestVecExpShiftSum: exp(x−s) within 2 float32 ulps of the float64 math.Exp
// rounded to float32 (of the same float32 argument), specials handled as
// math.Exp does, and the sum equal to the float64 sum of the outputs.
func TestVecExpShiftSum(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	bothPaths(t, func(t *testing.T) {
		var xs [][]float32
		for _, n := range vecLengths {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.NormFloat64() * 8)
			}
			xs = append(xs, x)
		}
		xs = append(xs, expCases)
		sweep := make([]float32, 0, 20000)
		for v := -110.0; v < 92; v += 0.0101 {
			sweep = append(sweep, float32(v))
		}
		xs = append(xs, sweep)
		for _, s := range []float32{0, 2.5, -3} {
			for _, x := range xs {
				checkExpShiftSum(t, x, s)
			}
		}
	})
}

// checkExpShiftSum: ExpShiftSum(x, y, s) writes exp(x−s) within 2 float32
// ulps of math.Exp into y and nothing past it, and returns the float64 sum
// of what it wrote, the same with y nil.
func checkExpShiftSum(t *testing.T, x []float32, s float32) {
	t.Helper()
	y := make([]float32, len(x)+1)
	y[len(x)] = 42 // past the end: untouched
	sum := ExpShiftSum(x, y[:len(x)], s)
	if y[len(x)] != 42 {
		t.Fatalf("n=%d: wrote past the end", len(x))
	}
	var want float64
	for i, v := range x {
		e := float32(math.Exp(float64(v - s)))
		if d := ulps32(y[i], e); d > 2 {
			t.Fatalf("exp(%v−%v) = %v, want %v (%d ulps)", v, s, y[i], e, d)
		}
		want += float64(y[i])
	}
	if only := ExpShiftSum(x, nil, s); math.Float64bits(only) != math.Float64bits(sum) {
		t.Fatalf("n=%d: sum without output %v, with %v", len(x), only, sum)
	}
	if !(math.Abs(sum-want) <= 1e-12*math.Abs(want)) && !(math.IsNaN(sum) && math.IsNaN(want)) && sum != want {
		t.Fatalf("n=%d: sum %v, want %v", len(x), sum, want)
	}
}

// TestVecExpShiftSumInPlace: y may be x.
func TestVecExpShiftSumInPlace(t *testing.T) {
	bothPaths(t, func(t *testing.T) {
		x := []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
		want := make([]float32, len(x))
		ExpShiftSum(x, want, 3)
		ExpShiftSum(x, x, 3)
		for i := range x {
			if x[i] != want[i] {
				t.Fatalf("in place [%d] = %v, want %v", i, x[i], want[i])
			}
		}
	})
}

// TestVecMaxOf: the maximum on every length and position (the kernel's tail
// lanes must not win), −Inf for an empty slice, ±Inf kept.
func TestVecMaxOf(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	bothPaths(t, func(t *testing.T) {
		if m := maxOf([]float32(nil)); !math.IsInf(float64(m), -1) {
			t.Fatalf("max of nothing = %v, want −Inf", m)
		}
		for _, n := range vecLengths[1:] {
			for _, at := range []int{0, n / 2, n - 1} {
				x := make([]float32, n)
				for i := range x {
					x[i] = -1 - float32(r.Float64()) // all negative: a zero lane would win
				}
				x[at] = -0.5
				if m := maxOf(x); m != -0.5 {
					t.Fatalf("n=%d max at %d: got %v", n, at, m)
				}
				x[at] = float32(math.Inf(1))
				if m := maxOf(x); !math.IsInf(float64(m), 1) {
					t.Fatalf("n=%d +Inf at %d: got %v", n, at, m)
				}
			}
		}
		inf := float32(math.Inf(-1))
		if m := maxOf([]float32{inf, inf, inf}); !math.IsInf(float64(m), -1) {
			t.Fatalf("max of −Infs = %v", m)
		}
	})
}

// softmaxRef is softmax in float64.
func softmaxRef(x []float32) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, float64(v))
	}
	var z float64
	p := make([]float64, len(x))
	for i, v := range x {
		p[i] = math.Exp(float64(v) - m)
		z += p[i]
	}
	for i := range p {
		p[i] /= z
	}
	return p
}

// softmaxTol bounds the float32 error of p = softmax(x)ᵢ: x−max is
// rounded to float32 first (relative error 2⁻²⁴ of the argument, which exp
// turns into |x−max|·2⁻²⁴ relative error of p), then exp (2 ulps), the
// scaling and the sum (a few more).
func softmaxTol(x []float32, i int, p float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, float64(v))
	}
	return (math.Abs(float64(x[i])-m) + 5) * 0x1p-24 * math.Abs(p)
}

// TestVecSoftmaxRow against the float64 softmax, within float32 rounding
// (softmaxTol); a NaN or +Inf makes the row
// NaN; −Inf entries become exact zeros (the attention's padding).
func TestVecSoftmaxRow(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	bothPaths(t, func(t *testing.T) {
		for _, n := range vecLengths[1:] {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.NormFloat64() * 5)
			}
			want := softmaxRef(x)
			x0 := append([]float32(nil), x...)
			softmaxRow(x)
			for i := range x {
				if d := math.Abs(float64(x[i]) - want[i]); d > softmaxTol(x0, i, want[i]) {
					t.Fatalf("n=%d: p[%d] = %v, want %v", n, i, x[i], want[i])
				}
			}
		}
		inf := float32(math.Inf(-1))
		x := []float32{1, inf, 1, inf, inf, inf, inf, inf, inf, 1}
		softmaxRow(x)
		for i, v := range x {
			want := float32(0)
			if i == 0 || i == 2 || i == 9 {
				want = 1 / 3.
			}
			if math.Abs(float64(v-want)) > 1e-7 || (want == 0 && v != 0) {
				t.Fatalf("masked row [%d] = %v, want %v (zeros exact)", i, v, want)
			}
		}
		for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1))} {
			x := []float32{1, 2, bad, 3, 4, 5, 6, 7, 8}
			softmaxRow(x)
			for i, v := range x {
				if v == v {
					t.Fatalf("row with %v: [%d] = %v, want NaN", bad, i, v)
				}
			}
		}
	})
}

// TestVecLogSumExp against float64 on long rows (the vocabulary's) and
// shifted ones (the max shift keeps exp in range).
func TestVecLogSumExp(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	bothPaths(t, func(t *testing.T) {
		for _, n := range vecLengths[1:] {
			for _, shift := range []float64{0, 500, -500} {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(r.NormFloat64()*3 + shift)
				}
				m := math.Inf(-1)
				for _, v := range x {
					m = math.Max(m, float64(v))
				}
				var s float64
				for _, v := range x {
					s += math.Exp(float64(v) - m)
				}
				want := m + math.Log(s)
				if got, _ := logSumExp(x, maxOf(x)); math.Abs(got-want) > 3e-7*math.Max(1, math.Abs(want)) {
					t.Fatalf("n=%d shift %v: lse %v, want %v", n, shift, got, want)
				}
			}
		}
	})
}
