// Package nn is the small neural-network library normtop's models stand
// on: the gorgonia ops gorgonia itself gets wrong or makes slow, the
// executor that runs a graph, Adam with warmup and inverse-sqrt decay, and
// the elementwise float32 SIMD loops of those ops.
//
// An op is a description (internal/graphop's Op): its kind, output shape,
// kernel for each element type, and the ops of its gradient. graphop
// answers every question gorgonia's Op and SDOp interfaces ask (arity,
// type, shape, hash, dtype dispatch, input checks, the reuse of the
// previous output as the next one's buffer), so an op's file is its math.
//
//	float.go           Float: the element types the kernels are written over
//	op_matmul.go       MatMul, MatMulT: products through gemm, data operands without gradient
//	op_bias.go         AddBias: x + b along axis 1, for rows and images
//	op_relu.go         ReLU, with Rectify's NaN and signed zeros
//	op_embed.go        Embed: a table lookup, scatter-add backward
//	op_positions.go    Sinusoids, AddPositions: fairseq's scaled input plus sinusoids
//	op_attention.go    Attention: fused multi-head self-attention, causal or not, masks, Layout
//	op_dropout.go      Dropout: inverted dropout whose masks come from the caller's RNG
//	op_xent.go         CrossEntropy: fused softmax cross-entropy, mean or sum, label smoothing
//	op_layout.go       ToRows, FromRows: images between NCHW and [B·H·W, C] rows
//	op_conv.go         Conv2D on NCHW (im2col through gemm)
//	op_convrows.go     ConvRows: the convolution on channels-last rows (the resnet's)
//	op_convrows_implicit.go  ConvRows at stride 1: products on a padded copy, no patches
//	op_pool.go         MeanPool: the mean of each sequence's real rows (the classifier's pooling)
//	op_shortcut.go     Shortcut, ShortcutRows: the ResNet shortcut where a block changes shape
//	layout.go          Layout: a token batch's split into sequences, read by ops as they run
//	mat.go             Mat and Mul: strided matrices and their product through gemm
//	exec.go            Executor: runs a graph in the TapeMachine's order, reusing every output
//	adam.go            Adam, the learning-rate schedule, gradient norm and clipping
//	vec*.go            the elementwise loops and their AVX2 kernels (exp's also in AVX-512)
//
// Graphs run on the Executor, not on gorgonia's TapeMachine: the same ops
// in the same order, with every op's output kept from one step to the
// next and reused, so a training step allocates almost nothing (train's
// exec_test.go holds it to the TapeMachine bit for bit). An op written
// elsewhere is a graphop.Op too: norm's layers, and train's fused LSTM
// layer, which calls the norm kernels.
//
// Token-budget batches change shape every step; the per-sequence ops
// (attention, mean pooling) read the batch's Layout when they run.
//
// Every op has a finite-difference test (ops_test.go, through
// nntest.GradCheck); so does every gorgonia built-in the models rely on
// (builtins_test.go). The SIMD kernels run where internal/simd says the
// processor has AVX2 and FMA; vec_test.go holds them to the Go loops.
//
// nn imports gemm (every matrix product goes through it), internal/graphop
// (the op adapter, below nn and norm so that both describe their ops the
// same way) and internal/simd, and nothing of normtop's above it: not
// norm, not train.
package nn
