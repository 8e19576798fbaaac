//go:build race

package gemm

// raceBuild: under -race sync.Pool drops items at random on purpose, so
// allocation counts mean nothing there.
const raceBuild = true
