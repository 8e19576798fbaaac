// Package simd is the one place normtop asks the processor what it can
// run, and the home of the float32 SIMD kernels more than one package
// needs.
//
// The CPU facts (cpu.go) say which instruction sets the assembly kernels
// of gemm (the matrix product), norm (the normalization kernels) and nn
// (the elementwise loops of the ops and Adam) may use. Each of those
// packages keeps its own switch, set from these facts, that its tests flip
// to compare the kernels with the Go loops; a build tagged purego ignores
// them and runs the Go loops everywhere.
//
// The reductions (reduce_amd64.s) are the row sums Σx and Σ(x−μ)² that
// norm's statistics and nn's gradient norm (Σx² = Σ(x−0)²) both run:
// one kernel for both, not one copy in each.
//
// It is a leaf package (it imports only golang.org/x/sys/cpu) because all
// three need it and nn imports gemm: a check inside gemm would link the
// matrix product into norm, and one inside nn would be out of gemm's reach
// (nn → gemm); nn and norm do not import each other.
package simd
