// Package openblas binds OpenBLAS's sgemm and dgemm (Debian's
// libopenblas-dev, through cgo) behind gonum's BLAS interfaces, in builds
// with -tags openblas: the reference the pure-Go kernels of package gemm
// are measured against, and the BLAS gemm.Install picks in such a build.
// Without the tag (or without cgo) the package links nothing and Get
// reports that.
//
// It is a package of its own because Go does not let a cgo package hold
// Go assembly, which package gemm is made of.
package openblas

import "gonum.org/v1/gonum/blas"

// BLAS is gonum's four BLAS interfaces, as gorgonia's Use takes them.
type BLAS interface {
	blas.Float32
	blas.Float64
	blas.Complex64
	blas.Complex128
}
