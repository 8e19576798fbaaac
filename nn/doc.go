// Package nn is the small neural-network library normtop's models stand
// on: the gorgonia ops gorgonia itself gets wrong or makes slow (the
// matrix product, bias add, ReLU, convolution and its padded/strided form
// in NCHW and on channels-last rows (ConvRows, the resnet's), the ResNet
// shortcut in both layouts and the NCHW↔rows relayout, dropout, embedding
// lookup, sinusoidal positions, causal and bidirectional self-attention,
// mean pooling, fused softmax cross-entropy), the executor that runs a
// graph, Adam with warmup and inverse-sqrt decay, and the elementwise
// float32 SIMD loops of those ops (vec.go, vec_amd64.s).
//
// Graphs run on the Executor (exec.go), not on gorgonia's TapeMachine: the
// same ops in the same order, with every op's output kept from one step to
// the next and reused, so a training step allocates almost nothing (train's
// exec_test.go holds it to the TapeMachine bit for bit). An op written
// elsewhere (train's fused LSTM layer, which calls the norm kernels) is
// built from the same kit: OpBase, Reuse, OutBufFull, TensorType, Mat and Mul.
//
// Token-budget batches change shape every step; the per-sequence ops
// (attention, mean pooling) read the batch's Layout when they run.
//
// Every op has a finite-difference test (ops_test.go, through
// nntest.GradCheck); so does every gorgonia built-in the models rely on
// (builtins_test.go). The SIMD kernels run where internal/simd says the
// processor has AVX2 and FMA; vec_test.go holds them to the Go loops.
//
// nn imports gemm (every matrix product goes through it) and nothing of
// normtop's above it: not norm, not train.
package nn

// gorgonia relies on the garbage collector not moving objects; on Go 1.26
// the program panics at start unless this package vouches for it.
import _ "go4.org/unsafe/assume-no-moving-gc"
