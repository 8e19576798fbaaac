// Package train is normtop's embedded trainer: the models (mlp, cnn,
// resnet, transformer, classifier, lstm; one file each, model_*.go), the
// side-by-side Runner that trains one copy of the model per normalization
// variant and turns every step into a probes.Frame, the configuration and
// its presets, the data sources and batchers, and evaluation.
//
// The models stand on package nn (the ops, the executor, Adam) and package
// norm (the variants' layers). The one op that stays here is the LSTM
// layer fused over the sequence (lstm_op.go, lstm_kernel.go): its cell
// calls the norm kernels row range by row range, and nn does not import
// norm.
//
// Token-budget batches (--max-tokens) change shape every step; they run in
// one graph of MaxTokens positions whose per-sequence ops (attention, mean
// pooling, positions) read the batch's nn.Layout when they run
// (data_tokens.go). The transformer's input is fairseq's or GPT-2's
// (model_input.go).
package train

import _ "go4.org/unsafe/assume-no-moving-gc" // gorgonia panics at start on Go ≥1.22 without it
