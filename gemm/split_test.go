package gemm

import (
	"math/rand/v2"
	"testing"
)

// TestSplitSameBits: the product is the same bits whether one goroutine
// computes it or several, on row bands (tall C) or column bands (wide C),
// for every transpose pair and with beta = 1 accumulating into C. This is
// what keeps runs repeatable across machines with different core counts.
func TestSplitSameBits(t *testing.T) {
	if !haveKernels {
		t.Skip("no AVX/FMA kernels in this build or on this CPU: Sgemm is gonum's")
	}
	forEachKernel(t, testSplitSameBits)
}

func testSplitSameBits(t *testing.T) {
	shapes := []problem{
		{m: 1024, k: 64, n: 80},
		{m: 64, k: 300, n: 192},
		{m: 37, k: 19, n: 41},
		{m: 200, k: 520, n: 33},
	}
	for si, s := range shapes {
		for tr := 0; tr < 4; tr++ {
			for _, beta := range []float64{0, 1} {
				p := s
				p.tA, p.tB, p.alpha, p.beta, p.padA, p.padB, p.padC = tr&1 != 0, tr&2 != 0, 0.75, beta, 1, 2, 3
				rng := rand.New(rand.NewPCG(uint64(si), uint64(tr)))
				a, lda, b, ldb, c0, ldc := operands[float32](p, rng)
				run := func(w int) []float32 {
					c := append([]float32(nil), c0...)
					split(microFor[float32](), w, p.tA, p.tB, p.m, p.n, p.k, float32(p.alpha), a, lda, b, ldb, float32(p.beta), c, ldc)
					return c
				}
				want := run(1)
				for _, w := range []int{2, 3, 5} {
					got := run(w)
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("%v: %d goroutines: C[%d] = %v, one goroutine %v", p, w, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestNoAllocations: a product allocates nothing once warm, serial or
// split (scratch comes from a pool, bands go to long-lived helpers), so
// GEMMs add nothing to a training step's garbage.
func TestNoAllocations(t *testing.T) {
	if raceBuild {
		t.Skip("-race: sync.Pool drops items at random, allocation counts mean nothing")
	}
	if !haveKernels {
		t.Skip("no AVX/FMA kernels in this build or on this CPU: Sgemm is gonum's")
	}
	forEachKernel(t, testNoAllocations)
}

func testNoAllocations(t *testing.T) {
	for _, s := range []shape{{1024, 64, 256, false, false}, {64, 1024, 192, true, false}, {64, 16, 64, false, true}, {7, 13, 5, true, true}} {
		a, b, c, lda, ldb := operandsFor(s)
		for _, w := range []int{1, 2} {
			n := testing.AllocsPerRun(10, func() {
				split(microFor[float32](), w, s.tA, s.tB, s.m, s.n, s.k, float32(1), a, lda, b, ldb, 0, c, s.n)
			})
			if n != 0 {
				t.Errorf("%v in %d goroutines: %v allocations per product", s, w, n)
			}
		}
	}
}
