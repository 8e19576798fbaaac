package gemm

import (
	"syscall"
	"testing"
	"unsafe"
)

// TestMaskedColumnsDoNotFault: kernel8x16 writing the last 10 columns of a
// C whose last row ends at a page that cannot be read or written. The
// masked-off lanes of its loads and stores lie in that page; AVX-512
// suppresses faults there, and the driver relies on it for C's last rows.
func TestMaskedColumnsDoNotFault(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512F on this CPU (or the OS does not save the Z registers), or no assembly in this build: kernel8x16 cannot run")
	}
	mem, page := guardedPage(t)
	const mr, cols, ldc, kc = 8, 10, 10, 5
	n := page / 4
	all := unsafe.Slice((*float32)(unsafe.Pointer(&mem[0])), n)
	c := all[n-mr*ldc:]
	a := make([]float32, mr*kc)
	b := make([]float32, kc*16)
	for i := range a {
		a[i] = float32(i%7) - 3
	}
	for i := range b {
		b[i] = float32(i%5) - 2
	}
	for _, add := range []bool{false, true} {
		kernel8x16(kc, &a[0], kc, 1, &b[0], 16, &c[0], ldc, 1, add, 1<<cols-1)
	}
	for i := 0; i < mr; i++ {
		for j := 0; j < cols; j++ {
			var want float32
			for p := 0; p < kc; p++ {
				want += a[i*kc+p] * b[p*16+j]
			}
			if c[i*ldc+j] != 2*want { // small integers: exact
				t.Fatalf("C[%d,%d] = %v, want %v", i, j, c[i*ldc+j], 2*want)
			}
		}
	}
}

// TestNarrowBInPlaceDoesNotFault: a product of 10 columns and few rows
// reads its untransposed B in place with kernel8x16's masked loads; B's
// last row ends at a page that cannot be read, so a load of the panel's
// 16 lanes there would fault.
func TestNarrowBInPlaceDoesNotFault(t *testing.T) {
	if !useAVX512 {
		t.Skip("kernel8x16 does not run here")
	}
	mem, page := guardedPage(t)
	const m, n, k = 13, 10, 7 // 13 rows: a full register block and an edge tile
	all := unsafe.Slice((*float32)(unsafe.Pointer(&mem[0])), page/4)
	b := all[len(all)-k*n:]
	a, c := make([]float32, m*k), make([]float32, m*n)
	for i := range a {
		a[i] = float32(i%7) - 3
	}
	for i := range b {
		b[i] = float32(i%5) - 2
	}
	gemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var want float32
			for p := 0; p < k; p++ {
				want += a[i*k+p] * b[p*n+j]
			}
			if c[i*n+j] != want { // small integers: exact
				t.Fatalf("C[%d,%d] = %v, want %v", i, j, c[i*n+j], want)
			}
		}
	}
}

// guardedPage maps two pages, the second unreadable and unwritable, and
// returns them with the page size: a kernel that touches memory past the
// first page's end faults. The mapping goes when the test ends.
func guardedPage(t *testing.T) (mem []byte, page int) {
	t.Helper()
	page = syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Skip("mmap:", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	return mem, page
}
