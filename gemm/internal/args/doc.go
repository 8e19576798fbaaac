// Package args checks ?gemm arguments the way gonum's Sgemm/Dgemm do, for
// the implementations that must not hand bad ones to their kernels.
package args
