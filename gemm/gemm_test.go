package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// problem is one ?gemm call: shapes, transposes, scalars and the padding
// added to each leading dimension beyond the row width.
type problem struct {
	m, n, k          int
	tA, tB           bool
	alpha, beta      float64
	padA, padB, padC int
	nanC             bool // C starts as NaN (beta = 0 must ignore it)
}

func (p problem) String() string {
	t := func(b bool) string {
		if b {
			return "T"
		}
		return "N"
	}
	return fmt.Sprintf("%dx%dx%d/%s%s/a%g/b%g/pad%d,%d,%d/nan%v", p.m, p.k, p.n, t(p.tA), t(p.tB),
		p.alpha, p.beta, p.padA, p.padB, p.padC, p.nanC)
}

// operands builds A, B and C with their leading dimensions; the padding
// columns of C hold a sentinel the product must not touch.
func operands[T float](p problem, rng *rand.Rand) (a []T, lda int, b []T, ldb int, c []T, ldc int) {
	rowsA, colsA := p.m, p.k
	if p.tA {
		rowsA, colsA = p.k, p.m
	}
	rowsB, colsB := p.k, p.n
	if p.tB {
		rowsB, colsB = p.n, p.k
	}
	lda, ldb, ldc = max(1, colsA+p.padA), max(1, colsB+p.padB), max(1, p.n+p.padC)
	fill := func(rows, ld int) []T {
		s := make([]T, rows*ld)
		for i := range s {
			s[i] = T(rng.Float64()*2 - 1)
		}
		return s
	}
	a, b, c = fill(rowsA, lda), fill(rowsB, ldb), fill(p.m, ldc)
	for i := 0; i < p.m; i++ {
		for j := 0; j < ldc; j++ {
			switch {
			case j >= p.n:
				c[i*ldc+j] = sentinel
			case p.nanC:
				c[i*ldc+j] = T(math.NaN())
			}
		}
	}
	return a, lda, b, ldb, c, ldc
}

const sentinel = 12345

// reference is the product in float64 from the same inputs, and for every
// element the bound on a correct float computation's error: γ·(|α|·Σ|a||b|
// + |β·c|), γ = (k+4)·u for unit roundoff u of T.
func reference[T float](p problem, a []T, lda int, b []T, ldb int, c []T, ldc int, u float64) (want, bound []float64) {
	want, bound = make([]float64, p.m*p.n), make([]float64, p.m*p.n)
	at := func(i, q int) float64 {
		if p.tA {
			return float64(a[q*lda+i])
		}
		return float64(a[i*lda+q])
	}
	bt := func(q, j int) float64 {
		if p.tB {
			return float64(b[j*ldb+q])
		}
		return float64(b[q*ldb+j])
	}
	for i := 0; i < p.m; i++ {
		for j := 0; j < p.n; j++ {
			var s, sa float64
			for q := 0; q < p.k; q++ {
				s += at(i, q) * bt(q, j)
				sa += math.Abs(at(i, q) * bt(q, j))
			}
			cv := float64(c[i*ldc+j])
			w, e := p.alpha*s, math.Abs(p.alpha)*sa
			if p.beta != 0 {
				w += p.beta * cv
				e += math.Abs(p.beta * cv)
			}
			want[i*p.n+j] = w
			bound[i*p.n+j] = float64(p.k+4) * u * e
		}
	}
	return want, bound
}

// check runs one problem through gemmFn and compares every element of C
// with the float64 reference, and the padding with the sentinel.
func check[T float](t *testing.T, p problem, seed uint64, u float64,
	gemmFn func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	a, lda, b, ldb, c, ldc := operands[T](p, rng)
	want, bound := reference(p, a, lda, b, ldb, c, ldc, u)
	tr := func(x bool) blas.Transpose {
		if x {
			return blas.Trans
		}
		return blas.NoTrans
	}
	gemmFn(tr(p.tA), tr(p.tB), p.m, p.n, p.k, T(p.alpha), a, lda, b, ldb, T(p.beta), c, ldc)
	for i := 0; i < p.m; i++ {
		for j := 0; j < ldc; j++ {
			got := float64(c[i*ldc+j])
			if j >= p.n {
				if got != sentinel {
					t.Fatalf("%v: C[%d,%d] outside the matrix changed to %v", p, i, j, got)
				}
				continue
			}
			w, e := want[i*p.n+j], bound[i*p.n+j]
			if !(math.Abs(got-w) <= e) {
				t.Fatalf("%v: C[%d,%d] = %v, want %v ± %.3g", p, i, j, got, w, e)
			}
		}
	}
}

const (
	u32 = 0x1p-24
	u64 = 0x1p-53
)

// oddProblems covers the edge paths: sizes below, at and just above the
// register blocks (6×16, 8×32, 6×8) and the cache blocks (k = 256, m = 96), every
// transpose pair, padded leading dimensions, and the alpha/beta cases.
func oddProblems() []problem {
	var ps []problem
	shapes := [][3]int{{1, 1, 1}, {7, 13, 5}, {6, 16, 16}, {6, 8, 8}, {5, 3, 17}, {13, 1, 33},
		{1, 300, 1}, {97, 257, 31}, {12, 64, 48}, {2, 0, 3}, {0, 4, 5}, {4, 5, 0}, {200, 20, 1600},
		{523, 300, 130}, // transposed, a packed A: lda ≥ packALda, kc ≥ packAKc, n ≥ packAColumns
		// a last panel of at most 16 columns, packed half wide (m > inPlaceBRows, or B transposed)
		// or, exactly 16 wide and B untransposed, read in place
		{100, 40, 40}, {70, 33, 16}, {64, 64, 16}, {8, 5, 80}}
	for _, s := range shapes {
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				ps = append(ps, problem{m: s[0], k: s[1], n: s[2], tA: tA, tB: tB, alpha: 1})
			}
		}
	}
	for _, s := range [][3]int{{7, 13, 5}, {19, 70, 40}} {
		for i, ab := range [][2]float64{{1, 1}, {-0.5, 0.25}, {2, -1}, {0, 0.5}, {0, 0}, {0.75, 0}} {
			ps = append(ps, problem{m: s[0], k: s[1], n: s[2], tA: i%2 == 1, tB: i%3 == 1,
				alpha: ab[0], beta: ab[1], padA: 3, padB: 5, padC: 2})
		}
		ps = append(ps,
			problem{m: 9, k: 20, n: 48, alpha: 1, padA: 1, padB: 3, padC: 2}, // in-place last panel at a stride
			problem{m: s[0], k: s[1], n: s[2], alpha: 1, beta: 0, nanC: true, padC: 1},
			problem{m: s[0], k: s[1], n: s[2], alpha: 0, beta: 0, nanC: true},
			problem{m: s[0], k: 0, n: s[2], alpha: 1, beta: 0, nanC: true},
			problem{m: s[0], k: s[1], n: s[2], tA: true, tB: true, alpha: 1, padA: 17, padB: 1, padC: 9})
	}
	return ps
}

func TestSgemmOddShapes(t *testing.T) {
	forEachKernel(t, func(t *testing.T) {
		for i, p := range oddProblems() {
			t.Run(p.String(), func(t *testing.T) {
				check(t, p, uint64(i), u32, Implementation{}.Sgemm)
			})
		}
	})
}

func TestDgemmOddShapes(t *testing.T) {
	for i, p := range oddProblems() {
		t.Run(p.String(), func(t *testing.T) {
			check(t, p, uint64(i), u64, Implementation{}.Dgemm)
		})
	}
}

// TestGonumPassesTheSameChecks runs gonum's Sgemm through the same checks:
// the bound is one a correct implementation meets, not one tuned to ours.
func TestGonumPassesTheSameChecks(t *testing.T) {
	if raceBuild {
		// A check of the checks on gonum's Go loops (9 CPU-seconds under the
		// race detector), with no goroutine of ours in it; CI's plain gemm
		// stages run it.
		t.Skip("a check of the checks, no goroutines: run without -race")
	}
	for i, p := range oddProblems() {
		check(t, p, uint64(i), u32, gonum.Implementation{}.Sgemm)
	}
}

// TestKernelsUsed makes sure the tests above exercised the assembly where
// the machine has it, and that it differs from gonum (FMA rounding) while
// it is on: a silently disabled kernel would pass every other test.
func TestKernelsUsed(t *testing.T) {
	if !haveKernels {
		t.Skip("no AVX/FMA kernels in this build or on this CPU: Sgemm is gonum's")
	}
	forEachKernel(t, testKernelsUsed)
}

func testKernelsUsed(t *testing.T) {
	p := problem{m: 64, k: 300, n: 64, alpha: 1}
	rng := rand.New(rand.NewPCG(1, 2))
	a, lda, b, ldb, c, ldc := operands[float32](p, rng)
	c2 := append([]float32(nil), c...)
	Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, p.m, p.n, p.k, 1, a, lda, b, ldb, 0, c, ldc)
	gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, p.m, p.n, p.k, 1, a, lda, b, ldb, 0, c2, ldc)
	differ := 0
	for i := range c {
		if c[i] != c2[i] {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("Sgemm matches gonum bit for bit: the kernels did not run")
	}
}

// TestDeterministic: the same product twice, and with C at another stride,
// gives the same bits (each element's summation order is fixed).
func TestDeterministic(t *testing.T) { forEachKernel(t, testDeterministic) }

func testDeterministic(t *testing.T) {
	p := problem{m: 97, k: 530, n: 70, tA: true, alpha: 1}
	rng := rand.New(rand.NewPCG(3, 4))
	a, lda, b, ldb, c, ldc := operands[float32](p, rng)
	c1 := make([]float32, len(c))
	c2 := make([]float32, p.m*(p.n+7))
	Implementation{}.Sgemm(blas.Trans, blas.NoTrans, p.m, p.n, p.k, 1, a, lda, b, ldb, 0, c1, ldc)
	Implementation{}.Sgemm(blas.Trans, blas.NoTrans, p.m, p.n, p.k, 1, a, lda, b, ldb, 0, c2, p.n+7)
	for i := 0; i < p.m; i++ {
		for j := 0; j < p.n; j++ {
			if c1[i*ldc+j] != c2[i*(p.n+7)+j] {
				t.Fatalf("C[%d,%d]: %v then %v", i, j, c1[i*ldc+j], c2[i*(p.n+7)+j])
			}
		}
	}
}

// TestBadArguments: every argument gonum rejects panics with gonum's
// message, and none of them is caught by a kernel reading out of bounds.
func TestBadArguments(t *testing.T) {
	a, b, c := make([]float32, 12), make([]float32, 12), make([]float32, 12)
	cases := []struct {
		name          string
		tA, tB        blas.Transpose
		m, n, k       int
		lda, ldb, ldc int
		la, lb, lc    int
	}{
		{"bad tA", 'x', blas.NoTrans, 2, 2, 2, 2, 2, 2, 12, 12, 12},
		{"bad tB", blas.NoTrans, 'y', 2, 2, 2, 2, 2, 2, 12, 12, 12},
		{"m<0", blas.NoTrans, blas.NoTrans, -1, 2, 2, 2, 2, 2, 12, 12, 12},
		{"n<0", blas.NoTrans, blas.NoTrans, 2, -1, 2, 2, 2, 2, 12, 12, 12},
		{"k<0", blas.NoTrans, blas.NoTrans, 2, 2, -1, 2, 2, 2, 12, 12, 12},
		{"lda", blas.NoTrans, blas.NoTrans, 2, 2, 3, 2, 2, 2, 12, 12, 12},
		{"lda trans", blas.Trans, blas.NoTrans, 3, 2, 2, 2, 2, 2, 12, 12, 12},
		{"ldb", blas.NoTrans, blas.NoTrans, 2, 3, 2, 2, 2, 3, 12, 12, 12},
		{"ldb trans", blas.NoTrans, blas.Trans, 2, 2, 3, 3, 2, 2, 12, 12, 12},
		{"ldc", blas.NoTrans, blas.NoTrans, 2, 3, 2, 2, 3, 2, 12, 12, 12},
		{"short a", blas.NoTrans, blas.NoTrans, 3, 2, 2, 2, 2, 2, 5, 12, 12},
		{"short b", blas.NoTrans, blas.Trans, 2, 3, 2, 2, 2, 2, 12, 5, 12},
		{"short c", blas.NoTrans, blas.NoTrans, 3, 2, 2, 2, 2, 2, 12, 12, 5},
	}
	panicOf := func(f func()) (msg any) {
		defer func() { msg = recover() }()
		f()
		return nil
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			call := func(impl blas.Float32) func() {
				return func() {
					impl.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1, a[:tc.la], tc.lda, b[:tc.lb], tc.ldb, 0, c[:tc.lc], tc.ldc)
				}
			}
			want := panicOf(call(gonum.Implementation{}))
			if want == nil {
				t.Fatal("gonum accepted the arguments: the case tests nothing")
			}
			if got := panicOf(call(Implementation{})); got != want {
				t.Fatalf("panic %v, want gonum's %v", got, want)
			}
		})
	}
}
