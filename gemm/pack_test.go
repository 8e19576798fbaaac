package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestCopyRows: the assembly copy moves exactly the rows' w elements (no
// element of dst past rows·w written, none of src's gaps read into dst),
// in both element sizes, and declines the widths it has no moves for.
func TestCopyRows(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testCopyRows[float32](t) })
	t.Run("float64", func(t *testing.T) { testCopyRows[float64](t) })
}

func testCopyRows[T float](t *testing.T) {
	cases := []struct{ rows, w, ld int }{
		{1, 8, 8}, {3, 8, 2048}, {256, 32, 2048}, {5, 16, 17}, {7, 24, 24}, {2, 32, 40},
		{4, 6, 6}, {0, 8, 8}, {3, 4, 9},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%dx%d/ld%d", c.rows, c.w, c.ld), func(t *testing.T) {
			src := make([]T, max(0, (c.rows-1)*c.ld+c.w))
			for i := range src {
				src[i] = T(i + 1)
			}
			dst := make([]T, c.rows*c.w+8)
			for i := range dst {
				dst[i] = -1
			}
			var z T
			want := haveKernels && c.rows > 0 && c.w*int(unsafe.Sizeof(z))/4%8 == 0
			if got := copyRows(dst, src, c.ld, c.rows, c.w); got != want {
				t.Fatalf("copyRows reported %v, want %v", got, want)
			}
			if !want {
				return
			}
			for p := 0; p < c.rows; p++ {
				for j := 0; j < c.w; j++ {
					if g, w := dst[p*c.w+j], src[p*c.ld+j]; g != w {
						t.Fatalf("dst[%d][%d] = %v, want %v", p, j, g, w)
					}
				}
			}
			for i := c.rows * c.w; i < len(dst); i++ {
				if dst[i] != -1 {
					t.Fatalf("dst[%d] = %v written past the rows", i, dst[i])
				}
			}
		})
	}
}

// TestPackA: packA's panels hold, bit for bit, element (i, p) of the
// block at p·mr + i and zeros in a partial panel's padding rows, whatever
// dst held, for untransposed (csa = 1), transposed (rsa = 1) and general
// strides, partial and whole panels, both register heights, with NaN
// payloads and ±Inf among the values.
func TestPackA(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, mr := range []int{6, 8} {
		for _, rows := range []int{1, 5, 6, 8, 13, 14, 21} {
			for _, kc := range []int{1, 7, 128} {
				for _, st := range [][2]int{{kc + 3, 1}, {1, rows + 2}, {kc * 3, 2}, {1, 1}} {
					rsa, csa := st[0], st[1]
					if rsa == 1 && csa == 1 && rows > 1 && kc > 1 {
						continue // overlapping elements: not a matrix
					}
					t.Run(fmt.Sprintf("mr%d/rows%d/kc%d/rs%d/cs%d", mr, rows, kc, rsa, csa), func(t *testing.T) {
						a := make([]float32, (rows-1)*rsa+(kc-1)*csa+1)
						for i := range a {
							a[i] = float32(rng.NormFloat64())
							if rng.IntN(9) == 0 {
								a[i] = specials[rng.IntN(len(specials))]
							}
						}
						size := roundUp(rows, mr) * kc
						dst := make([]float32, size+5)
						for i := range dst {
							dst[i] = float32(math.NaN())
						}
						packA(mr, a, rsa, csa, rows, kc, dst)
						for i0 := 0; i0 < rows; i0 += mr {
							for p := 0; p < kc; p++ {
								for i := 0; i < mr; i++ {
									var want float32
									if i0+i < rows {
										want = a[(i0+i)*rsa+p*csa]
									}
									if got := dst[i0*kc+p*mr+i]; math.Float32bits(got) != math.Float32bits(want) {
										t.Fatalf("panel %d (p %d, row %d) = %v, want %v", i0/mr, p, i, got, want)
									}
								}
							}
						}
						for i := size; i < len(dst); i++ {
							if !math.IsNaN(float64(dst[i])) {
								t.Fatalf("dst[%d] written past the panels", i)
							}
						}
					})
				}
			}
		}
	}
}
