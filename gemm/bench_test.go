package gemm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
)

// shape is one product of the trainer: op(A) m×k, op(B) k×n.
type shape struct {
	m, k, n int
	tA, tB  bool
}

func (s shape) String() string {
	t := func(b bool) string {
		if b {
			return "T"
		}
		return "N"
	}
	return fmt.Sprintf("%dx%dx%d%s%s", s.m, s.k, s.n, t(s.tA), t(s.tB))
}

// modelShapes are the default transformer's products (batch 16 × context
// 64 = 1024 rows, d 64, FFN 256, vocabulary ≈ 80) and the mlp's (batch 32,
// 784-256-256-10): for each linear layer the forward x·W, the input
// gradient dy·Wᵀ and the weight gradient xᵀ·dy.
func modelShapes() []shape {
	var ss []shape
	add := func(rows, in, out int, inputGrad bool) {
		ss = append(ss, shape{rows, in, out, false, false}, shape{in, rows, out, true, false})
		if inputGrad {
			ss = append(ss, shape{rows, out, in, false, true})
		}
	}
	for _, l := range [][2]int{{64, 192}, {64, 64}, {64, 256}, {256, 64}, {64, 80}} {
		add(1024, l[0], l[1], true)
	}
	// causal attention per head (context 64, head width 16): QKᵀ and
	// dO·Vᵀ, PV and dS·K, Pᵀ·dO and dSᵀ·Q
	ss = append(ss, shape{64, 16, 64, false, true}, shape{64, 64, 16, false, false}, shape{64, 64, 16, true, false})
	add(32, 784, 256, false)
	add(32, 256, 256, true)
	add(32, 256, 10, true)
	return ss
}

// wideShapes are the word LM's products at d 512 (1,024 tokens a batch,
// FFN 2,048, vocabulary 2,000, tied embeddings: the logits are x·Eᵀ),
// as a step of BenchmarkPeer/words-d512 calls them, and 1024³: the big
// shapes, where the blocking for L2 and L3 decides the speed.
func wideShapes() []shape {
	var ss []shape
	add := func(rows, in, out int, inputGrad bool) {
		ss = append(ss, shape{rows, in, out, false, false}, shape{in, rows, out, true, false})
		if inputGrad {
			ss = append(ss, shape{rows, out, in, false, true})
		}
	}
	for _, l := range [][2]int{{512, 1536}, {512, 512}, {512, 2048}, {2048, 512}} {
		add(1024, l[0], l[1], true)
	}
	// tied output layer: logits x·Eᵀ, input gradient dy·E, E's gradient dyᵀ·x
	ss = append(ss, shape{1024, 512, 2000, false, true}, shape{1024, 2000, 512, false, false}, shape{2000, 1024, 512, true, false})
	return append(ss, shape{1024, 1024, 1024, false, false})
}

// impls are the implementations compared in one run: gonum's, ours with
// each float32 kernel the CPU has, and OpenBLAS under -tags openblas.
var impls = benchImpls()

func benchImpls() []Named {
	var ns []Named
	for _, im := range Available() {
		if _, ours := im.BLAS.(Implementation); !ours {
			ns = append(ns, im)
			continue
		}
		for _, k := range float32Kernels {
			if !k.wide || haveAVX512 {
				ns = append(ns, Named{im.Name + "-" + k.name, kernelImpl{wide: k.wide}})
			}
		}
	}
	return ns
}

// kernelImpl is Implementation with its float32 kernel fixed, so one
// benchmark run can interleave the kernels.
type kernelImpl struct {
	Implementation
	wide bool
}

func (k kernelImpl) Sgemm(tA, tB blas.Transpose, m, n, kk int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	saved := useAVX512
	useAVX512 = k.wide
	k.Implementation.Sgemm(tA, tB, m, n, kk, alpha, a, lda, b, ldb, beta, c, ldc)
	useAVX512 = saved
}

func operandsFor(s shape) (a, b, c []float32, lda, ldb int) {
	rng := rand.New(rand.NewPCG(1, 1))
	fill := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.Float64() - 0.5)
		}
		return x
	}
	lda, ldb = s.k, s.n
	if s.tA {
		lda = s.m
	}
	if s.tB {
		ldb = s.k
	}
	return fill(s.m * s.k), fill(s.k * s.n), fill(s.m * s.n), lda, ldb
}

func tr(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// BenchmarkSgemm runs every implementation on each model shape, a burst
// of calls of each in turn, so machine load hits all alike, and reports
// each one's GFLOP/s (from the median burst) and its ratio to the last
// implementation listed (OpenBLAS under -tags openblas, else ours).
//
// A burst is one call for the large shapes and as many calls as make 4
// MFLOP for the small ones, as the trainer makes them: attention issues
// its per-head products back to back, 64 and more in a row. A single
// 1-2 µs call timed right after another implementation's (or gonum's
// scalar code) measured mostly the vector units waking up: the same
// 64×64×16 product timed 43 GFLOP/s that way and 100-108 in a loop.
func BenchmarkSgemm(b *testing.B) {
	for _, s := range append(modelShapes(), shape{1024, 1024, 1024, false, false}) {
		b.Run(s.String(), func(b *testing.B) {
			a, bb, c, lda, ldb := operandsFor(s)
			flops := 2 * float64(s.m*s.k*s.n)
			burst := max(1, int(4e6/flops))
			ts := make([][]time.Duration, len(impls))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j, im := range impls {
					t0 := time.Now()
					for r := 0; r < burst; r++ {
						im.BLAS.Sgemm(tr(s.tA), tr(s.tB), s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, s.n)
					}
					ts[j] = append(ts[j], time.Since(t0))
				}
			}
			reportGflops(b, ts, flops*float64(burst))
		})
	}
}

// BenchmarkSgemmWide is BenchmarkSgemm on wideShapes, one call a burst,
// gonum's scalar code left out (a second or more a call at these sizes).
func BenchmarkSgemmWide(b *testing.B) {
	for _, s := range wideShapes() {
		b.Run(s.String(), func(b *testing.B) {
			a, bb, c, lda, ldb := operandsFor(s)
			flops := 2 * float64(s.m*s.k*s.n)
			ts := make([][]time.Duration, len(impls))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j, im := range impls {
					if im.Name == "gonum" {
						ts[j] = append(ts[j], time.Hour) // not run
						continue
					}
					t0 := time.Now()
					im.BLAS.Sgemm(tr(s.tA), tr(s.tB), s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, s.n)
					ts[j] = append(ts[j], time.Since(t0))
				}
			}
			reportGflops(b, ts, flops)
		})
	}
}

// BenchmarkSgemmStep is the whole set of model products per iteration
// (one step's worth for the transformer, then the mlp's).
func BenchmarkSgemmStep(b *testing.B) {
	ss := modelShapes()
	type ops struct {
		a, b, c  []float32
		lda, ldb int
	}
	var os []ops
	var flops float64
	for _, s := range ss {
		a, bb, c, lda, ldb := operandsFor(s)
		os = append(os, ops{a, bb, c, lda, ldb})
		flops += 2 * float64(s.m*s.k*s.n)
	}
	ts := make([][]time.Duration, len(impls))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, im := range impls {
			t0 := time.Now()
			for q, s := range ss {
				o := os[q]
				im.BLAS.Sgemm(tr(s.tA), tr(s.tB), s.m, s.n, s.k, 1, o.a, o.lda, o.b, o.ldb, 0, o.c, s.n)
			}
			ts[j] = append(ts[j], time.Since(t0))
		}
	}
	reportGflops(b, ts, flops)
}

func reportGflops(b *testing.B, ts [][]time.Duration, flops float64) {
	g := make([]float64, len(ts))
	for j, t := range ts {
		g[j] = flops / medianNs(t)
		b.ReportMetric(g[j], impls[j].Name+"-GFLOP/s")
	}
	last := len(impls) - 1
	for j := 0; j < last; j++ {
		b.ReportMetric(100*g[j]/g[last], impls[j].Name+"-%-of-"+impls[last].Name)
	}
}

func medianNs(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[len(s)/2].Nanoseconds())
}
