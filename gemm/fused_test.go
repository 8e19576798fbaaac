package gemm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestFusedPackSameBits: products whose untransposed B is packed by
// kernel8x32p as the first row block reads it give the bits of packing
// first, for both transposes of A (a packed transposed A included), k in
// one block and several, a last partial panel, m one register block high
// and not a multiple of the cache block, NaN and ±Inf among the values,
// beta 0 (C holding NaN) and 1, through both float32 kernels (the AVX2
// one never fuses: the check holds there trivially) and in parallel bands.
func TestFusedPackSameBits(t *testing.T) {
	shapes := [][3]int{{8, 40, 32}, {65, 17, 64}, {97, 300, 70}, {200, 784, 100}, {100, 513, 1600},
		{523, 300, 130}, {1024, 512, 96}, {70, 1030, 33}}
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
						run := func(fuse bool) []float32 {
							out := append([]float32(nil), c...)
							saved := fuseBPack
							fuseBPack = fuse
							defer func() { fuseBPack = saved }()
							Implementation{}.Sgemm(tr, blas.NoTrans, p.m, p.n, p.k, 1, a, lda, b, ldb, float32(p.beta), out, ldc)
							return out
						}
						want, got := run(false), run(true)
						for j := range want {
							if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
								t.Fatalf("C[%d] = %v fused, %v packed first", j, got[j], want[j])
							}
						}
					})
				}
			}
		}
	})
}
