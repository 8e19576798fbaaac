package train

import (
	"fmt"
	"math"

	"github.com/normtop/normtop/datasets"
	"github.com/normtop/normtop/normspec"
)

// problems collects what check finds, in the order it looks; Validate
// reports the first.
type problems []error

func (p *problems) add(format string, a ...any) { *p = append(*p, fmt.Errorf(format, a...)) }

// check is Validate returning the parsed variant specs, so that a Runner
// parses each spec once.
func (c Config) check() ([]normspec.Config, error) {
	var p problems
	c.checkModel(p.add)
	specs := c.checkVariants(&p)
	c.checkRuns(p.add)
	c.checkSchedule(p.add)
	c.checkOptimizer(p.add)
	c.checkOutput(p.add)
	if len(p) > 0 {
		return nil, p[0]
	}
	return specs, nil
}

// checkModel: the model, its data and its sizes.
func (c Config) checkModel(add func(string, ...any)) {
	switch {
	case c.Model.OnImages():
		if c.Data != "mnist" {
			add("data %q: model %s trains on mnist (an IDX directory)", c.Data, c.Model)
		}
		if c.Placement != "" {
			add("placement %s: model %s has no Transformer blocks; --placement is for transformer and classifier", c.Placement, c.Model)
		}
	case c.Model.OnTokens():
		c.checkTokenModel(add)
	default:
		add("model %q: want mlp, cnn, resnet, transformer, classifier or lstm", c.Model)
	}
}

// checkTokenModel: the transformer's, the classifier's and the LSTM's data,
// sizes, input and placement.
func (c Config) checkTokenModel(add func(string, ...any)) {
	switch {
	case (c.Model == ModelTransformer || c.Model == ModelLSTM) && c.Data != "text" && c.Data != "sotu" && c.Data != "moby-dick" && c.Data != "words":
		add("data %q: model %s trains on text (characters of a UTF-8 file), sotu, moby-dick or words:FILE (sentences)", c.Data, c.Model)
	case c.Model == ModelClassifier && c.Data != "spam" && c.Data != "docs":
		add("data %q: model classifier trains on spam or a directory of class subdirectories", c.Data)
	}
	if c.Model.Recurrent() {
		c.checkLSTM(add)
	} else if c.Layers < 1 || c.DModel < 1 || c.Heads < 1 || c.SeqLen < 1 {
		add("transformer sizes layers=%d d-model=%d heads=%d seq-len=%d: each must be ≥ 1", c.Layers, c.DModel, c.Heads, c.SeqLen)
	} else if c.DModel > MaxDModel {
		add("d-model %d: want ≤ %d", c.DModel, MaxDModel)
	} else if c.Layers > MaxLayers {
		add("layers %d: want ≤ %d", c.Layers, MaxLayers)
	} else if c.SeqLen > MaxSeqLen {
		add("seq-len %d: want ≤ %d", c.SeqLen, MaxSeqLen)
	} else if c.DModel%c.Heads != 0 {
		add("d-model %d is not divisible by heads %d", c.DModel, c.Heads)
	} else if c.FFN < 0 || c.FFN > 4*MaxDModel {
		add("ffn %d: want 0 (4 × d-model) to %d", c.FFN, 4*MaxDModel)
	}
	if datasets.IsWordSet(c.Data) && c.SeqLen < 2 {
		add("seq-len %d: sentence and document batches need at least 2 positions", c.SeqLen)
	}
	if c.Input != "" && !validInput(c.Input) {
		add("input %q: want %s or %s", c.Input, InputFairseq, InputLearned)
	}
	if c.TieEmbeddings && c.Model == ModelClassifier {
		add("tie-embeddings: the classifier's output layer maps to classes, not to the vocabulary; there is nothing to tie")
	}
	if _, err := ParsePlacement(string(c.Placement.Or())); err != nil {
		add("%v", err)
	}
	if c.Vocab < 0 || (c.Vocab > 0 && c.Vocab < 8) {
		add("vocab %d: want 0 (every word seen twice) or at least 8", c.Vocab)
	}
}

// checkVariants parses every variant spec (a bad one is a *VariantError)
// and checks it fits the model and the batches.
func (c Config) checkVariants(p *problems) []normspec.Config {
	if len(c.Variants) == 0 {
		p.add("variants: none given; want at least one of %s", variantNames())
	}
	specs := make([]normspec.Config, len(c.Variants))
	parsed := make([]bool, len(c.Variants))
	for i, v := range c.Variants {
		var err error
		if specs[i], err = normspec.Parse(v); err != nil {
			*p = append(*p, &VariantError{Spec: v, Err: err})
		} else if specs[i].Kind == normspec.InstanceNorm && c.MaxTokens > 0 {
			// its statistics are per sequence, and a token-budget batch
			// changes the sequences' length every step
			*p = append(*p, &VariantError{Spec: v, Err: fmt.Errorf("instancenorm takes its statistics over each sequence's positions, which token-budget batches (--max-tokens %d) change every step; use --batch N", c.MaxTokens)})
		} else if k := specs[i].Kind; c.Model.Recurrent() && !k.RowFamily() && k != normspec.None {
			*p = append(*p, &VariantError{Spec: v, Err: fmt.Errorf("%s: %w", specs[i].Kind, errRecurrentVariant)})
		} else if !c.Model.Trains(specs[i].Kind) {
			p.add("variant %s: not defined on %s's image sites (a row there is one pixel's channels, not a sample); %s trains %s",
				specs[i].Kind, c.Model, c.Model, c.Model.variantsOn())
		}
		parsed[i] = err == nil
	}
	// Two specs of one variant (a repeat, or options at their defaults:
	// layernorm and layernorm:eps=1e-5) would train twice under one label,
	// and nothing downstream could tell their rows apart.
	canon := map[string]string{}
	for i, v := range c.Variants {
		if !parsed[i] {
			continue // reported above
		}
		k := specs[i].String()
		if first, dup := canon[k]; dup {
			p.add("variants: %q is the same variant as %q (both are %s); give each variant once", v, first, k)
			continue
		}
		canon[k] = v
	}
	return specs
}

// checkRuns: the per-variant learning rates and the seeds, and how many
// trainings they make.
func (c Config) checkRuns(add func(string, ...any)) {
	for i, lr := range c.VariantLR {
		if i < 0 || i >= len(c.Variants) {
			add("variant-lr: variant index %d outside 0..%d", i, len(c.Variants)-1)
		} else if !(lr > 0) || math.IsInf(lr, 0) {
			add("variant-lr: %g for variant %d, want a finite number > 0", lr, i)
		}
	}
	seen := map[int64]bool{}
	for _, sd := range c.Seeds {
		if seen[sd] {
			add("seeds: %d given twice; each seed once", sd)
		}
		seen[sd] = true
	}
	if n := len(c.Variants) * max(1, len(c.Seeds)); n > MaxRuns {
		add("variants × seeds = %d trainings; at most %d in one run", n, MaxRuns)
	}
}

// checkSchedule: how long the run is and how its batches are made.
func (c Config) checkSchedule(add func(string, ...any)) {
	if c.Steps < 0 || c.Steps > MaxSteps {
		add("steps %d: want 0 (= use epochs) to %d", c.Steps, MaxSteps)
	}
	if c.Steps == 0 && (c.Epochs < 1 || c.Epochs > MaxSteps) {
		add("steps 0 and epochs %d: give steps ≥ 1 or epochs 1 to %d", c.Epochs, MaxSteps)
	}
	if c.Batch < 1 || c.Batch > MaxBatch {
		add("batch %d: want 1 to %d", c.Batch, MaxBatch)
	}
	switch {
	case c.MaxTokens == 0:
	case c.MaxTokens < 0 || c.MaxTokens > MaxTokens:
		add("max-tokens %d: want 0 (= --batch sentences) or %d to %d", c.MaxTokens, max(c.SeqLen, 1), MaxTokens)
	case !c.Model.OnTokens() || !datasets.IsWordSet(c.Data):
		add("max-tokens %d: model %s on %s data has no sentences to group; token budgets batch sentences and documents (--data sotu, moby-dick, words:FILE, spam)", c.MaxTokens, c.Model, c.Data)
	case c.MaxTokens < c.SeqLen:
		add("max-tokens %d is below the longest sentence, seq-len %d positions: want --max-tokens ≥ %d", c.MaxTokens, c.SeqLen, c.SeqLen)
	}
}

// checkOptimizer: the input options a model without tokens refuses, and
// the optimizer's numbers. Comparisons are written so that NaN fails
// them, and Inf checked apart: a non-finite rate would make every variant
// diverge at step 1.
func (c Config) checkOptimizer(add func(string, ...any)) {
	if !c.Model.OnTokens() && (c.TieEmbeddings || (c.Input != "" && c.Input != InputLearned)) {
		add("input %q, tie-embeddings %v: model %s has no token embedding", c.Input, c.TieEmbeddings, c.Model)
	}
	if !(c.LR > 0) || math.IsInf(c.LR, 0) {
		add("lr %g: want a finite number > 0", c.LR)
	}
	if c.Warmup < 0 {
		add("warmup %d: want ≥ 0", c.Warmup)
	}
	if !(c.Clip >= 0) || math.IsInf(c.Clip, 0) {
		add("clip %g: want a finite number ≥ 0 (0 = off)", c.Clip)
	}
	if !(c.Dropout >= 0 && c.Dropout < 1) {
		add("dropout %g: want 0 ≤ p < 1", c.Dropout)
	}
	switch c.Loss {
	case "", LossMean, LossSum:
	default:
		add("loss %q: want %s (the mean over real tokens) or %s (fairseq's: summed, gradients divided by the token count after the backward)", c.Loss, LossMean, LossSum)
	}
	if c.Loss == LossSum && !c.Model.OnTokens() {
		add("loss %s: model %s has no tokens to sum over; --loss is for transformer, classifier and lstm", c.Loss, c.Model)
	}
	if !(c.LabelSmoothing >= 0 && c.LabelSmoothing < 1) {
		add("label-smoothing %g: want 0 ≤ ε < 1", c.LabelSmoothing)
	} else if c.LabelSmoothing > 0 && !c.Model.OnTokens() {
		add("label-smoothing %g: model %s has no tokens; --label-smoothing is for transformer, classifier and lstm", c.LabelSmoothing, c.Model)
	}
	if !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 0) {
		add("weight-decay %g: want a finite number ≥ 0", c.WeightDecay)
	}
	if c.RowMultiple < 0 || c.RowMultiple > MaxBatch {
		add("row-multiple %d: want 0 or 1 (off) to %d", c.RowMultiple, MaxBatch)
	}
}

// checkOutput: evaluation, logging, the probes and the dtype.
func (c Config) checkOutput(add func(string, ...any)) {
	if c.EvalEvery < 1 {
		add("eval-every %d: want ≥ 1", c.EvalEvery)
	}
	if c.EvalSize < 1 || c.EvalSize > MaxEvalSize {
		add("eval-size %d: want 1 to %d", c.EvalSize, MaxEvalSize)
	}
	if c.TestSize < 0 || c.TestSize > MaxEvalSize {
		add("test-size %d: want 0 (= the whole test split) to %d", c.TestSize, MaxEvalSize)
	}
	if c.LogEvery < 0 {
		add("log-every %d: want ≥ 0", c.LogEvery)
	}
	if err := c.Probes.Validate(); err != nil {
		add("probes: %w", err)
	}
	if c.Dtype != "float32" && c.Dtype != "float64" {
		add("dtype %q: want float32 or float64", c.Dtype)
	}
}
