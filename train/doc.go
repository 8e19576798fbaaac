// Package train is normtop's embedded trainer: the models (mlp, cnn,
// resnet, transformer, classifier, lstm; one file each, model_*.go), the
// side-by-side Runner that trains one copy of the model per normalization
// variant and turns every step into a probes.Frame, the configuration and
// its presets, the data sources and batchers, and evaluation.
//
// Files are cut by concept. To follow one transformer step, read
// model_transformer.go (the model whole), model.go (what Forward builds
// with), net.go (the compiled graph) and variant.go (the step).
//
//	config.go             Config, its presets and defaults
//	config_check.go       Validate: every problem of a configuration, in one error
//	config_lstm.go        the LSTM preset and the variants it refuses
//	modelkind.go          ModelKind: the --model names and what each trains on
//	model.go              the model interface, sites, weight specs and their init, the builder
//	model_transformer.go  the transformer whole: forward, placements, input, weights, sites
//	model_classifier.go   the transformer encoder with a pooled classification head
//	model_mlp.go, model_cnn.go, model_resnet.go, model_lstm.go  the other models
//	lstm_op.go            the LSTM layer fused over the sequence, as graph ops
//	lstm_kernel.go        its cell's forward and backward, calling the norm kernels
//	net.go                one compiled graph of a variant (training or eval) and its engine
//	runner.go             Runner: builds one variant per spec and seed, runs them side by side
//	variant.go            one variant's training: its graphs, loop, step and evaluation
//	runner_meta.go        the run's header (probes.RunMeta), the input's measured variance
//	gwnorm.go             which weights each norm site feeds, and their gradient norms
//	data.go               the data sources, batchers and evaluation sets
//	data_tokens.go        token-budget batches (--max-tokens)
//	memory.go             the memory estimate that refuses a run too large
//	estimate.go           EstimateRun: a run's memory and CPU time before it starts
//
// The models stand on package nn (the ops, the executor, Adam) and package
// norm (the variants' layers). The one op that stays here is the LSTM
// layer fused over the sequence (lstm_op.go, lstm_kernel.go; described to
// gorgonia through internal/graphop, as nn's and norm's ops are): its cell
// calls the norm kernels row range by row range, and nn does not import
// norm.
//
// Token-budget batches (--max-tokens) change shape every step; they run in
// one graph of MaxTokens positions whose per-sequence ops (attention, mean
// pooling, positions) read the batch's nn.Layout when they run
// (data_tokens.go).
package train
