package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// withTranspose16 runs f with the assembly packing of a transposed B on or
// off; on skips where the CPU cannot run it.
func withTranspose16(t *testing.T, on bool, f func()) {
	t.Helper()
	if on && !haveAVX512 {
		t.Skip("no AVX-512F on this CPU, or no assembly in this build: transpose16 cannot run")
	}
	saved := useTranspose16
	useTranspose16 = on
	defer func() { useTranspose16 = saved }()
	f()
}

// specials are values a copy must move bit for bit: NaNs with payloads
// and signs, ±Inf, ±0 and subnormals.
var specials = []float32{float32(math.NaN()), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800123),
	float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-45, -3e-39, math.MaxFloat32}

// TestPackTransposed: the panels packB makes of a transposed B with
// transpose16 hold the Go loop's bits, zero padding included, for panels
// of 1 to 32 rows of B, 16 and 32 wide, k blocks with and without a
// remainder past the last 16, at offsets into B, and with NaN, ±Inf, ±0
// and subnormals among the values; nothing past the panels is written.
func TestPackTransposed(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	type pc struct{ nr, nc, kc, pc, jc, pad int }
	var cases []pc
	for _, nr := range []int{16, 32} {
		for _, nc := range []int{1, 5, 15, 16, 17, 26, 31, 32, 33, 64, 70} {
			if nc > nr && nr == 16 {
				continue
			}
			for _, kc := range []int{16, 17, 31, 48, 128, 196, 256} {
				cases = append(cases, pc{nr, nc, kc, 0, 0, 0}, pc{nr, nc, kc, 3, 2, 7})
			}
		}
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("nr%d/nc%d/kc%d/at%d,%d/pad%d", c.nr, c.nc, c.kc, c.pc, c.jc, c.pad), func(t *testing.T) {
			rowsB, ldb := c.jc+c.nc, c.pc+c.kc+c.pad
			b := make([]float32, (rowsB-1)*ldb+c.pc+c.kc) // the last row ends at its last element read
			for i := range b {
				if rng.IntN(8) == 0 {
					b[i] = specials[rng.IntN(len(specials))]
				} else {
					b[i] = float32(rng.NormFloat64())
				}
			}
			panels := roundUp(c.nc, c.nr) * c.kc
			pack := func(on bool) []float32 {
				dst := make([]float32, panels+40)
				for i := range dst {
					dst[i] = -7
				}
				withTranspose16(t, on, func() { packB(true, b, ldb, c.pc, c.kc, c.jc, c.nc, c.nr, dst) })
				return dst
			}
			want, got := pack(false), pack(true)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("dst[%d] (p %d, column %d of panel %d) = %v (%#x), the Go loop's %v (%#x)", i,
						i%(c.kc*c.nr)/c.nr, i%c.nr, i/(c.kc*c.nr), got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
				}
			}
			for i := panels; i < len(got); i++ {
				if got[i] != -7 {
					t.Fatalf("dst[%d] written past the panels", i)
				}
			}
		})
	}
}

// TestTransposedProductsSameBits: whole products with a transposed B give
// the same bits with the assembly packing as with the Go loop, through
// both float32 kernels, at the edge shapes and the word LM's and
// attention's shapes, NaN and ±Inf in the operands included.
func TestTransposedProductsSameBits(t *testing.T) {
	shapes := [][3]int{{14, 128, 14}, {58, 128, 58}, {1, 17, 1}, {9, 31, 40}, {70, 300, 33}, {97, 257, 31},
		{200, 784, 100}, {64, 512, 2000}, {40, 2048, 48}}
	forEachKernel(t, func(t *testing.T) {
		for i, s := range shapes {
			for _, tA := range []bool{false, true} {
				p := problem{m: s[0], k: s[1], n: s[2], tA: tA, tB: true, alpha: 1, padB: i % 3}
				t.Run(p.String(), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(i), 9))
					a, lda, b, ldb, c, ldc := operands[float32](p, rng)
					for j := 0; j < len(b)/50; j++ {
						b[rng.IntN(len(b))] = specials[rng.IntN(len(specials))]
					}
					a[rng.IntN(len(a))] = float32(math.Inf(-1))
					tr := blas.NoTrans
					if tA {
						tr = blas.Trans
					}
					run := func(on bool) []float32 {
						out := append([]float32(nil), c...)
						withTranspose16(t, on, func() {
							Implementation{}.Sgemm(tr, blas.Trans, p.m, p.n, p.k, 1, a, lda, b, ldb, 0, out, ldc)
						})
						return out
					}
					want, got := run(false), run(true)
					for j := range want {
						if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
							t.Fatalf("C[%d] = %v, %v with the Go loop's packing", j, got[j], want[j])
						}
					}
				})
			}
		}
	})
}
