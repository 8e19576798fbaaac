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
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
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
