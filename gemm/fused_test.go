package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestFusedPackSameBits: products whose untransposed B is packed by
// kernel8x32p as the first row block reads it, and whose transposed A is
// packed by kernel8x32a as the first panel reads it, give the bits of
// packing first, each fusion on and off, for both transposes of A, k in
// one block and several, a last partial panel, m one register block high
// and not a multiple of the cache block, NaN and ±Inf among the values,
// beta 0 (C holding NaN) and 1, through both float32 kernels (the AVX2
// one never fuses: the check holds there trivially) and in parallel bands.
func TestFusedPackSameBits(t *testing.T) {
	shapes := [][3]int{{8, 40, 32}, {65, 17, 64}, {97, 300, 70}, {200, 784, 100}, {100, 513, 1600},
		{1024, 512, 96}, {70, 1030, 33},
		// a transposed A that is packed (lda ≥ packALda, kc ≥ packAKc, n ≥
		// packAColumns): m a multiple of the register block or not, several
		// cache blocks of m, n past one cache block
		{523, 300, 130}, {603, 1030, 200}, {1024, 512, 256}, {520, 256, 1600}}
	forEachKernel(t, func(t *testing.T) {
		for i, s := range shapes {
			for _, tA := range []bool{false, true} {
				for _, beta := range []float64{0, 1} {
					p := problem{m: s[0], k: s[1], n: s[2], tA: tA, alpha: 1, beta: beta, padB: i % 3, padC: 1, nanC: beta == 0}
					t.Run(p.String(), func(t *testing.T) {
						rng := rand.New(rand.NewPCG(uint64(i), 11))
						a, lda, b, ldb, c, ldc := operands[float32](p, rng)
						for j := 0; j < len(b)/40; j++ {
							b[rng.IntN(len(b))] = specials[rng.IntN(len(specials))]
						}
						a[rng.IntN(len(a))] = float32(math.Inf(1))
						tr := blas.NoTrans
						if tA {
							tr = blas.Trans
						}
						run := func(fuseB, fuseA bool) []float32 {
							out := append([]float32(nil), c...)
							savedB, savedA := fuseBPack, fuseAPack
							fuseBPack, fuseAPack = fuseB, fuseA
							defer func() { fuseBPack, fuseAPack = savedB, savedA }()
							Implementation{}.Sgemm(tr, blas.NoTrans, p.m, p.n, p.k, 1, a, lda, b, ldb, float32(p.beta), out, ldc)
							return out
						}
						want := run(false, false)
						for _, f := range [][2]bool{{true, false}, {false, true}, {true, true}} {
							got := run(f[0], f[1])
							for j := range want {
								if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
									t.Fatalf("C[%d] = %v with fusion (B, A) %v, %v packed first", j, got[j], f, want[j])
								}
							}
						}
					})
				}
			}
		}
	})
}
