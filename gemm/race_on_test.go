//go:build race

package gemm

// raceBuild: under -race sync.Pool drops items at random on purpose, so
// allocation counts mean nothing there; and the bit-for-bit sweeps of big
// shapes, which run no goroutines of ours, are left to the plain builds
// (CI's -tags openblas and -tags purego stages).
const raceBuild = true
