package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWindowsMatchesPatchMatrix: Windows over overlapping segments gives
// Sgemm's bits on the patch matrix written out (the same FMA chain per
// element), for row counts with and without a partial register block,
// 1 to 16 columns; and it declines what its kernel cannot take.
func TestWindowsMatchesPatchMatrix(t *testing.T) {
	if !useAVX512 {
		if Windows(8, 8, 3, 3, 10, make([]float32, 200), 1, make([]float32, 72), 8, make([]float32, 64), 8) {
			t.Fatal("Windows ran without the AVX-512 kernels")
		}
		t.Skip("no AVX-512 kernels here")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range []struct{ m, n, seglen, nseg, segstride, lda int }{
		{64, 8, 24, 3, 240, 8}, {37, 16, 48, 3, 256, 16}, {5, 8, 3, 3, 30, 1}, {8, 1, 7, 2, 9, 3}, {19, 13, 10, 4, 50, 5}, {9, 16, 256, 1, 256, 16},
	} {
		k := s.nseg * s.seglen
		rows := roundUp(s.m, 8)
		a := make([]float32, (rows-1)*s.lda+(s.nseg-1)*s.segstride+s.seglen)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		b := make([]float32, k*s.n)
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		c := make([]float32, s.m*s.n)
		if !Windows(s.m, s.n, s.seglen, s.nseg, s.segstride, a, s.lda, b, s.n, c, s.n) {
			t.Fatalf("%+v: declined", s)
		}
		patches := make([]float32, s.m*k)
		for i := 0; i < s.m; i++ {
			for g := 0; g < s.nseg; g++ {
				copy(patches[i*k+g*s.seglen:][:s.seglen], a[i*s.lda+g*s.segstride:])
			}
		}
		want := make([]float32, s.m*s.n)
		gemm(false, false, s.m, s.n, k, 1, patches, k, b, s.n, 0, want, s.n)
		for i := range want {
			if c[i] != want[i] {
				t.Fatalf("%+v: C[%d] = %v, the patch matrix's product %v (bit-identical)", s, i, c[i], want[i])
			}
		}
	}
	for _, s := range []struct{ n, seglen, nseg int }{{17, 8, 3}, {8, 100, 3}, {0, 8, 3}} {
		if Windows(8, s.n, s.seglen, s.nseg, 1000, make([]float32, 10000), 8, make([]float32, 10000), 32, make([]float32, 1000), 32) {
			t.Errorf("n %d, K %d: not declined", s.n, s.seglen*s.nseg)
		}
	}
}

// TestWindowsTMatchesOverlapping: WindowsT gives the bits of Overlapping's
// transposed product (the same k blocks and FMA chains) on overlapping
// and disjoint rows of A, for row counts across k-block edges, kr not a
// multiple of 8 and above 24, 1 to 32 columns, with NaN and ±Inf among
// the values; both within rounding of a float64 sum; and it declines
// what its kernels cannot take, and runs nothing without AVX-512.
func TestWindowsTMatchesOverlapping(t *testing.T) {
	if !useAVX512 {
		if WindowsT(8, 8, 8, make([]float32, 200), 1, make([]float32, 64), 8, make([]float32, 64), 8) {
			t.Fatal("WindowsT ran without the AVX-512 kernels")
		}
		t.Skip("no AVX-512 kernels here")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range []struct {
		m, kr, n, lda int
		special       bool // NaN and ±Inf among A's and B's values
	}{
		{28738, 24, 8, 8, false}, {7522, 48, 16, 16, false}, {25088, 3, 8, 1, false},
		{1, 8, 8, 8, false}, {7, 13, 5, 4, false}, {256, 24, 16, 24, false}, {257, 30, 1, 3, false},
		{600, 72, 13, 9, false}, {513, 16, 16, 40, false}, {300, 24, 8, 8, true}, {40, 5, 3, 2, true},
		{1568, 96, 32, 32, false}, {70, 10, 17, 5, false},
	} {
		a := make([]float32, (s.m-1)*s.lda+roundUp(s.kr, 8))
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		b := make([]float32, s.m*s.n)
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		if s.special {
			a[3], a[len(a)/2] = float32(math.Inf(1)), float32(math.NaN())
			b[s.n+1], b[len(b)-1] = float32(math.Inf(-1)), float32(math.NaN())
		}
		got := make([]float32, s.kr*s.n+5) // ldc = n, a tail that must stay
		for i := range got {
			got[i] = 42
		}
		if !WindowsT(s.m, s.kr, s.n, a, s.lda, b, s.n, got, s.n) {
			t.Fatalf("%+v: declined", s)
		}
		for _, k := range float32Kernels {
			restore := useKernel(t, k)
			want := make([]float32, s.kr*s.n)
			for i := range want {
				want[i] = float32(math.NaN()) // beta 0 overwrites whatever C held
			}
			if !Overlapping(true, false, s.kr, s.n, s.m, 1, a, s.lda, b, s.n, 0, want, s.n) {
				t.Fatalf("%+v: Overlapping declined", s)
			}
			restore()
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("%+v, %s: C[%d] = %v, Overlapping's %v (bit-identical)", s, k.name, i, got[i], want[i])
				}
			}
		}
		for i := s.kr * s.n; i < len(got); i++ {
			if got[i] != 42 {
				t.Fatalf("%+v: C[%d] past the product written", s, i)
			}
		}
		if s.special {
			continue
		}
		for r := 0; r < s.kr; r++ {
			for j := 0; j < s.n; j++ {
				var sum, abs float64
				for p := 0; p < s.m; p++ {
					v := float64(a[p*s.lda+r]) * float64(b[p*s.n+j])
					sum, abs = sum+v, abs+math.Abs(v)
				}
				if d := math.Abs(float64(got[r*s.n+j]) - sum); d > 1e-5*abs+1e-6 {
					t.Fatalf("%+v: C[%d,%d] = %v, the float64 sum %v", s, r, j, got[r*s.n+j], sum)
				}
			}
		}
	}
	for _, s := range []struct{ kr, n int }{{8, 0}, {0, 8}} {
		if WindowsT(8, s.kr, s.n, make([]float32, 1000), 8, make([]float32, 1000), 32, make([]float32, 1000), 32) {
			t.Errorf("kr %d, n %d: not declined", s.kr, s.n)
		}
	}
	// an empty sum is zero
	c := []float32{1, 2, 3, 4}
	if !WindowsT(0, 2, 2, nil, 1, nil, 2, c, 2) || c[0] != 0 || c[3] != 0 {
		t.Fatalf("m 0: C = %v, want zeros", c)
	}
}

// TestWindowsTRunsMatchesGathered: WindowsTRuns over runs of rows with
// gaps, at a row stride of A that skips (a strided convolution's) or
// overlaps, gives per chain the bits of Sgemm's transposed product of the
// chain's rows gathered into plain matrices (one k block, so one FMA
// chain per element), the first chain stored over C and the others added;
// with add, every chain added; an empty chain contributes zero; and it
// refuses an empty run.
func TestWindowsTRunsMatchesGathered(t *testing.T) {
	if !useAVX512 {
		if WindowsTRuns(8, 8, make([]float32, 200), 1, make([]float32, 64), 8, []Run{{0, 0, 1}}, []int{1}, make([]float32, 64), 8, false) {
			t.Fatal("WindowsTRuns ran without the AVX-512 kernels")
		}
		t.Skip("no AVX-512 kernels here")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, s := range []struct {
		kr, n, lda int
		add        bool
	}{{24, 8, 16, false}, {48, 16, 32, false}, {3, 8, 1, false}, {96, 32, 64, true}, {13, 5, 4, false}, {30, 17, 3, true}} {
		a := make([]float32, 100000)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		b := make([]float32, 3000*s.n)
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		// chains of runs with gaps between them in A and in B; chain 2 is empty
		var runs []Run
		var ends []int
		pa, pb := 0, 0
		for chain := 0; chain < 5; chain++ {
			if chain != 2 {
				for r := 0; r < 1+rng.IntN(4); r++ {
					n := 1 + rng.IntN(60)
					runs = append(runs, Run{A: pa, B: pb, N: n})
					pa += (n + rng.IntN(3)) * s.lda
					pb += (n + rng.IntN(3)) * s.n
				}
			}
			ends = append(ends, len(runs))
		}
		got := make([]float32, s.kr*s.n)
		want := make([]float32, s.kr*s.n)
		for i := range got {
			got[i] = float32(rng.NormFloat64())
		}
		copy(want, got)
		if !WindowsTRuns(s.kr, s.n, a, s.lda, b, s.n, runs, ends, got, s.n, s.add) {
			t.Fatalf("%+v: declined", s)
		}
		start := 0
		for i, end := range ends {
			var ag, bg []float32
			for _, r := range runs[start:end] {
				for q := 0; q < r.N; q++ {
					ag = append(ag, a[r.A+q*s.lda:][:s.kr]...)
					bg = append(bg, b[r.B+q*s.n:][:s.n]...)
				}
			}
			rows := len(ag) / s.kr
			chain := make([]float32, s.kr*s.n) // zero for an empty chain
			if rows > 0 {
				gemm(true, false, s.kr, s.n, rows, 1, ag, s.kr, bg, s.n, 0, chain, s.n)
			}
			for j := range want {
				if s.add || i > 0 {
					want[j] += chain[j]
				} else {
					want[j] = chain[j]
				}
			}
			start = end
		}
		for j := range want {
			if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
				t.Fatalf("%+v: C[%d] = %v, the gathered chains' %v (bit-identical)", s, j, got[j], want[j])
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("an empty run: no panic")
		}
	}()
	WindowsTRuns(8, 8, make([]float32, 200), 1, make([]float32, 64), 8, []Run{{0, 0, 0}}, []int{1}, make([]float32, 64), 8, false)
}
