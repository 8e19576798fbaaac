// Package train is normtop's embedded trainer: the models (mlp, cnn,
// transformer, classifier, lstm), the gorgonia ops gorgonia itself gets
// wrong or makes slow (dropout, fused softmax cross-entropy, embedding
// lookup, causal self-attention, bias add, ReLU, the matrix product, a
// whole LSTM layer over the sequence), Adam with warmup and
// inverse-sqrt decay, and the side-by-side Runner that trains one copy of
// the model per normalization variant and turns every step into a
// probes.Frame.
//
// Graphs run on the executor (exec.go), not on gorgonia's TapeMachine: the
// same ops in the same order, with every op's output kept from one step to
// the next and reused, so a training step allocates almost nothing
// (exec_test.go holds it to the TapeMachine bit for bit).
//
// Token-budget batches (--max-tokens) change shape every step; they run in
// one graph of MaxTokens positions whose per-sequence ops (attention, mean
// pooling, positions) read the batch's Layout when they run (layout.go,
// data_tokens.go). The transformer's input is fairseq's or GPT-2's
// (model_input.go).
//
// Every op here has a finite-difference test (ops_test.go); so does every
// gorgonia built-in the models rely on.
package train

import _ "go4.org/unsafe/assume-no-moving-gc" // gorgonia panics at start on Go ≥1.22 without it
