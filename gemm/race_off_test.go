//go:build !race

package gemm

const raceBuild = false
