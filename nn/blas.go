package nn

import "github.com/normtop/normtop/gemm"

// Every matrix product of training, gorgonia's (linear layers) and nn's
// (attention, convolution, through mat.go's Mul), runs on package gemm's
// kernels, or on OpenBLAS in a build with -tags openblas. Installing here,
// at package initialisation, puts it in place before any graph runs, in
// the binary and in tests alike.
func init() { gemm.Install() }
