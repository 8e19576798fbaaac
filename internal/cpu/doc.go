// Package cpu is the one place normtop asks the processor what it can run:
// which SIMD instruction sets the assembly kernels of gemm (the matrix
// product), norm (the normalization kernels) and nn (the elementwise loops
// of the ops and Adam) may use.
//
// It is a leaf package (it imports only golang.org/x/sys/cpu) because all
// three need it and nn imports gemm: a check inside gemm would link the
// matrix product into norm, and one inside nn would be out of gemm's reach
// (nn → gemm). Each kernel package keeps its own switch, set from these
// facts, that its tests flip to compare the kernels with the Go loops; a
// build tagged purego ignores them and runs the Go loops everywhere.
package cpu
