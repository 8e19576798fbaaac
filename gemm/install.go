package gemm

import (
	"github.com/normtop/normtop/gemm/openblas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
)

// BLAS is what gorgonia accepts: gonum's four BLAS interfaces.
type BLAS = G.BLAS

// Named is one BLAS that this build offers, for benchmarks that compare
// them in one run.
type Named struct {
	Name string
	BLAS BLAS
}

// Available lists the BLAS implementations of this build, the installed
// default last: gonum's, ours, and OpenBLAS under -tags openblas.
func Available() []Named {
	ns := []Named{{"gonum", gonum.Implementation{}}, {"normtop", Implementation{}}}
	if ob, ok := openblas.Get(); ok {
		ns = append(ns, Named{"openblas", ob})
	}
	return ns
}

// Default is the BLAS Install installs: OpenBLAS under -tags openblas,
// else Implementation.
func Default() BLAS {
	a := Available()
	return a[len(a)-1].BLAS
}

// Use makes b the BLAS of every matrix product in the process: gorgonia's
// (whose Use also sets its tensor package's), and gonum's blas32 and
// blas64 package-level functions, which the trainer's own ops call. Call it
// before products run, not while they do: the packages read their choice
// without a lock.
func Use(b BLAS) {
	G.Use(b)
	blas32.Use(b)
	blas64.Use(b)
}

// Install is Use(Default()).
func Install() { Use(Default()) }
