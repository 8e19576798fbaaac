package gemm

import (
	"fmt"
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
