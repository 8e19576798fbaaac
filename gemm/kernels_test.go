package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// float32Kernel is one path float32 products can take.
type float32Kernel struct {
	name string
	wide bool // kernel8x32 (AVX-512) rather than kernel6x16 (AVX2)
}

var float32Kernels = []float32Kernel{{"avx2", false}, {"avx512", true}}

// useKernel makes k the float32 kernel until the returned func restores
// the previous choice; it skips t where the CPU cannot run k.
func useKernel(t testing.TB, k float32Kernel) (restore func()) {
	t.Helper()
	if k.wide && !haveAVX512 {
		t.Skip("no AVX-512F on this CPU (or the OS does not save the Z registers), or no assembly in this build: kernel8x32 cannot run")
	}
	saved := useAVX512
	useAVX512 = k.wide
	return func() { useAVX512 = saved }
}

// forEachKernel runs f as one subtest per float32 kernel.
func forEachKernel(t *testing.T, f func(t *testing.T)) {
	for _, k := range float32Kernels {
		t.Run(k.name, func(t *testing.T) {
			defer useKernel(t, k)()
			f(t)
		})
	}
}

// TestKernelChoice: with AVX-512 on the CPU, float32 products use
// kernel8x32 unless NORMTOP_GEMM=avx2 says otherwise; without it they
// never do. A dispatch that silently fell back would pass every test of
// results, since both kernels give the same bits.
func TestKernelChoice(t *testing.T) {
	want := haveAVX512 && os.Getenv("NORMTOP_GEMM") != "avx2"
	if useAVX512 != want {
		t.Fatalf("useAVX512 = %v with haveAVX512 = %v, NORMTOP_GEMM = %q", useAVX512, haveAVX512, os.Getenv("NORMTOP_GEMM"))
	}
	for _, k := range float32Kernels {
		t.Run(k.name, func(t *testing.T) {
			defer useKernel(t, k)()
			if mk := microFor[float32](); (mk == wide32) != k.wide {
				t.Fatalf("microFor[float32]() = %+v", mk)
			}
			if mk := microFor[float64](); mk != narrow64 {
				t.Fatalf("microFor[float64]() = %+v, want the 6×8 kernel whatever the float32 choice", mk)
			}
		})
	}
}

// TestAVX512Kernels calls each AVX-512 kernel on one register block,
// with A in place at strides, against float64, for a kc around the
// unrolling, both store modes and an alpha that rounds; and checks it
// writes nothing outside its block (kernel8x16's masked columns
// included).
func TestAVX512Kernels(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512F on this CPU (or the OS does not save the Z registers), or no assembly in this build: kernel8x32 cannot run")
	}
	for _, k := range avx512Kernels() {
		t.Run(k.name, func(t *testing.T) { testAVX512Kernel(t, k) })
	}
}

// avx512Kernel is one AVX-512 kernel writing cols columns of C.
type avx512Kernel struct {
	name string
	cols int
	fn   func(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool)
}

func avx512Kernels() []avx512Kernel {
	ks := []avx512Kernel{{"8x32", 32, kernel8x32}}
	for _, cols := range []int{16, 10, 1} {
		ks = append(ks, avx512Kernel{fmt.Sprintf("8x16/%dcols", cols), cols,
			func(kc int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha float32, add bool) {
				kernel8x16(kc, a, rsa, csa, b, ldb, c, ldc, alpha, add, uint16(1)<<cols-1)
			}})
	}
	return ks
}

func testAVX512Kernel(t *testing.T, k avx512Kernel) {
	const mr, rsa, csa, ldb, ldc = 8, 3, 29, 37, 35
	for _, kc := range []int{1, 3, 4, 5, 17, 256} {
		for _, add := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(uint64(kc), 9))
			a := make([]float32, (mr-1)*rsa+(kc-1)*csa+1)
			b := make([]float32, kc*ldb)
			c := make([]float32, mr*ldc)
			for _, s := range [][]float32{a, b, c} {
				for i := range s {
					s[i] = float32(rng.Float64()*2 - 1)
				}
			}
			c0 := append([]float32(nil), c...)
			const alpha = 0.3
			k.fn(kc, &a[0], rsa, csa, &b[0], ldb, &c[0], ldc, alpha, add)
			for i := 0; i < mr; i++ {
				for j := 0; j < ldc; j++ {
					got := float64(c[i*ldc+j])
					if j >= k.cols {
						if got != float64(c0[i*ldc+j]) {
							t.Fatalf("kc %d add %v: C[%d,%d] outside the block changed", kc, add, i, j)
						}
						continue
					}
					var s, sa float64
					for p := 0; p < kc; p++ {
						x := float64(a[i*rsa+p*csa]) * float64(b[p*ldb+j])
						s, sa = s+x, sa+math.Abs(x)
					}
					want, bound := alpha*s, float64(kc+4)*u32*alpha*sa
					if add {
						want += float64(c0[i*ldc+j])
						bound += u32 * math.Abs(want)
					}
					if !(math.Abs(got-want) <= bound) {
						t.Fatalf("kc %d add %v: C[%d,%d] = %v, want %v ± %.3g", kc, add, i, j, got, want, bound)
					}
				}
			}
		}
	}
}

// TestKernelsSameBits: the AVX-512 and AVX2 paths give the same bits on
// the models' shapes, every transpose, and the odd problems (edges,
// paddings, alpha/beta, NaN in C), each in one goroutine and split.
// This is what makes a run's results independent of the CPU having
// AVX-512.
func TestKernelsSameBits(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512F on this CPU (or the OS does not save the Z registers), or no assembly in this build: only one float32 kernel")
	}
	ps := oddProblems()
	shapes := append(modelShapes(), shape{m: 1024, k: 784, n: 100}, shape{m: 131, k: 1100, n: 1600})
	if raceBuild {
		// The model's shapes compare the two kernels' bits through the Go
		// packing loops, 15 CPU-seconds under the race detector for a check
		// with no goroutines in it; the odd shapes stay, and CI's plain gemm
		// stages run the rest.
		shapes = nil
	}
	for _, s := range shapes {
		for tr := 0; tr < 4; tr++ {
			ps = append(ps, problem{m: s.m, k: s.k, n: s.n, tA: tr&1 != 0, tB: tr&2 != 0, alpha: 1})
		}
		ps = append(ps, problem{m: s.m, k: s.k, n: s.n, tA: s.tA, tB: s.tB, alpha: -0.7, beta: 1, padA: 1, padB: 2, padC: 3})
	}
	for i, p := range ps {
		rng := rand.New(rand.NewPCG(uint64(i), 11))
		a, lda, b, ldb, c0, ldc := operands[float32](p, rng)
		run := func(k float32Kernel) []float32 {
			defer useKernel(t, k)()
			c := append([]float32(nil), c0...)
			Implementation{}.Sgemm(tr(p.tA), tr(p.tB), p.m, p.n, p.k, float32(p.alpha), a, lda, b, ldb, float32(p.beta), c, ldc)
			return c
		}
		want, got := run(float32Kernels[0]), run(float32Kernels[1])
		for j := range want {
			if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
				t.Fatalf("%v: C[%d] = %v with AVX-512, %v with AVX2", p, j, got[j], want[j])
			}
		}
	}
}
