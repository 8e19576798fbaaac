// Package graphop turns an op described by its math into a gorgonia op.
// An Op is a kind, an output shape, a kernel per element type, an optional
// check of the state the op reads as it runs, and the ops of its gradient;
// Apply adds it to a graph, and the adapter (op.go) answers everything
// gorgonia's Op and SDOp interfaces ask besides the math: arity, type,
// shape, a hash unique to the instance, dtype dispatch, input checks, and
// the reuse of the op's previous output as the next one's buffer. So an
// op's file, in nn, norm or train, is its math and its gradient check.
//
//	op.go      Op, Kernel, Apply, Of; the adapter to gorgonia's interfaces
//	values.go  gorgonia values as the kernels see them: Float, AsDense,
//	           Scalar, NewDense, TensorType, and the output buffers
//
// It sits below nn and norm (which do not import each other) so that both
// describe their ops the same way; it imports gorgonia and nothing of
// normtop's.
package graphop

// gorgonia imports go4.org/unsafe/assume-no-moving-gc at a version that
// panics at start on Go ≥ 1.22. Importing it here keeps the module's
// requirement at the version that asks the runtime instead; a requirement
// holds for the whole module, so this one import, in the package every
// gorgonia op of normtop's goes through, serves every package that links
// gorgonia.
import _ "go4.org/unsafe/assume-no-moving-gc"
