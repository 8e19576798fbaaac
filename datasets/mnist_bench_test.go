package datasets

import (
	"path/filepath"
	"testing"
)

// BenchmarkMNISTLoad compares loading the default MNIST from the GoMNIST
// module (SHA-256 of the .gz files, gunzip, decode) with loading the
// verified decompressed copies from the cache (SHA-256, decode), and both
// directories read as plain IDX directories.
//
//	go test -run '^$' -bench MNISTLoad -benchtime 5x ./datasets/
func BenchmarkMNISTLoad(b *testing.B) {
	if _, err := findGoMNIST(); err != nil {
		b.Skipf("GoMNIST module unavailable: %v", err)
	}
	cache := filepath.Join(b.TempDir(), "gomnist")
	if _, err := loadGoMNIST(cache); err != nil {
		b.Fatal(err)
	}
	b.Run("module", func(b *testing.B) {
		for b.Loop() {
			if _, err := loadGoMNIST(""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			if _, err := loadCachedMNIST(cache); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The same files through MNIST(dir), which checks structure only.
	module, _ := findGoMNIST()
	for name, dir := range map[string]string{"dir-gzip": module, "dir-plain": cache} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := MNIST(dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
