//go:build !openblas || !cgo

package openblas

// Get reports that this build does not link OpenBLAS: it was built
// without -tags openblas, or without cgo.
func Get() (BLAS, bool) { return nil, false }
