// Package gemm is normtop's matrix product: a float32 (and float64) GEMM in
// Go assembly that gorgonia's ops, gonum's blas32/blas64 and the trainer's
// own ops all call once Install has run.
//
// gonum's pure-Go Sgemm, which gorgonia uses by default, reaches a fifth of
// OpenBLAS's speed on the trainer's shapes and was three quarters of a
// training step. The code here is the usual design of fast BLAS libraries,
// written for the shapes normtop has (a thousand rows, a few hundred
// columns): a register block of FMA accumulators (the micro-kernel), B
// packed into panels of the block's width that stay in L1 while the kernel
// sweeps the rows, and k, m and n blocked so the working set stays in
// cache. A is read in place with its row and column strides, so the
// transposed products of the backward pass cost no copy; only a last
// partial panel of fewer rows than the block is copied, zero padded (and a
// transposed A in the big products, whose in-place reads would each be a
// new cache line). Full panels are copied by copy_amd64.s's AVX moves, a
// transposed B's by transpose16's 16×16 register transposes
// (transpose_amd64.s), and the 8×32 kernel prefetches its block of C
// before its k loop, which the big products' C (larger than L2, added
// into once per k block) needs. With that kernel an untransposed B and a
// packed transposed A are not packed in a pass of their own: the first
// row block's (B) or the first panel's (A) kernel calls read them in place
// and store the packed copy as they go (kernelpack_amd64.s), hiding the
// copy's cache misses behind their FMAs.
//
// The micro-kernel is chosen at start-up. float32 products use an 8×32
// block of 512-bit AVX-512 accumulators (kernel512_amd64.s, with an 8×16
// twin for a last panel of at most 16 columns) where internal/simd reports
// AVX-512F, which includes the check that the OS saves the Z registers;
// otherwise a 6×16 block of 256-bit AVX/FMA accumulators
// (kernel_amd64.s). float64 products always use the 6×8 AVX one. The
// environment variable NORMTOP_GEMM=avx2 keeps the 6×16 kernel on an
// AVX-512 CPU, to compare the two. Every kernel computes each element of C
// as one FMA chain over the same k block in the same order, scales it by
// alpha and adds it to C the same way, so the choice changes the speed,
// never the bits (kernels_test.go): a run's results do not depend on
// whether its CPU has AVX-512.
//
// A product of more than a few MFLOP is split into bands of C, one
// goroutine per GOMAXPROCS. Each element of C sums its k products in the
// same order whatever the band, the shape's strides, the core count or the
// machine load, so a run is repeatable bit for bit (split_test.go). The
// kernels use FMA, so results differ from gonum's in the last bits.
//
// Implementation satisfies gonum's blas.Float32 and blas.Float64 (and the
// complex interfaces, so gorgonia accepts it): Sgemm and Dgemm are the
// fast ones, every other routine is gonum's. Without AVX and FMA, with
// `-tags purego` and off amd64, Sgemm and Dgemm are gonum's too.
//
// Entry points beyond BLAS serve convolutions that read their patches in
// place from a zero-bordered copy of the images (nn.ConvRows): Overlapping
// is the product with A's rows allowed to overlap (a row stride below the
// row's width, which BLAS refuses); Windows the product whose A rows are
// several such runs (a window's filter rows), walked by one AVX-512
// kernel in one FMA chain per element, the chain Sgemm gives the patch
// matrix written out; WindowsT and WindowsTRuns the filters' gradient,
// Aᵀ·B over a long k of windows with C's few rows held in registers and
// A read in place (no packed transpose), over runs of rows that need not
// be consecutive (the valid windows only, or a strided convolution's),
// summed in the k blocks (KBlock) that Overlapping and Sgemm use, so with
// their bits. Overlapping runs on this package's kernels whatever Install
// chose, the window products on AVX-512.
//
// With `-tags openblas` (cgo, Debian's libopenblas-dev) the package also
// offers OpenBLAS, the reference the kernels are measured against, and
// Install installs OpenBLAS instead.
package gemm
