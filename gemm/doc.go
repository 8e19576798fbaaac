// Package gemm is normtop's matrix product: a float32 (and float64) GEMM in
// Go assembly that gorgonia's ops, gonum's blas32/blas64 and the trainer's
// own ops all call once Install has run.
//
// gonum's pure-Go Sgemm, which gorgonia uses by default, reaches a fifth of
// OpenBLAS's speed on the trainer's shapes and was three quarters of a
// training step. The code here is the usual design of fast BLAS libraries,
// written for the shapes normtop has (a thousand rows, a few hundred
// columns): a 6×16 float32 (6×8 float64) register block of AVX2 FMA
// accumulators (kernel_amd64.s), B packed into 16-column panels that stay
// in L1 while the kernel sweeps the rows, and k, m and n blocked so the
// working set stays in cache. A is read in place with its row and column
// strides, so the transposed products of the backward pass cost no copy;
// only a last partial panel of fewer than six rows is copied, zero padded.
//
// A product of more than a few MFLOP is split into bands of C, one
// goroutine per GOMAXPROCS. Each element of C sums its k products in the
// same order whatever the band, the shape's strides, the core count or the
// machine load, so a run is repeatable bit for bit (split_test.go). The
// kernels use FMA, so results differ from gonum's in the last bits.
//
// Implementation satisfies gonum's blas.Float32 and blas.Float64 (and the
// complex interfaces, so gorgonia accepts it): Sgemm and Dgemm are the
// fast ones, every other routine is gonum's. Without AVX2 and FMA, with
// `-tags purego` and off amd64, Sgemm and Dgemm are gonum's too.
//
// With `-tags openblas` (cgo, Debian's libopenblas-dev) the package also
// offers OpenBLAS, the reference the kernels are measured against, and
// Install installs OpenBLAS instead.
package gemm
