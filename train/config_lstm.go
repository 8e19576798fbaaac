package train

import (
	"errors"

	"github.com/normtop/normtop/datasets"
)

// errRecurrentVariant refuses a batch-statistics variant on the LSTM. Its
// N_h and N_c would need statistics per time step over the batch, with
// running statistics per step for inference (Cooijmans et al.'s recurrent
// BatchNorm): a different layer from the one normtop's batchnorm, pn-v and
// powernorm are, and not what Ba et al. compare.
var errRecurrentVariant = errors.New("model lstm takes per-row variants only (layernorm, layernorm-simple, detachnorm, detach-mean, detach-variance, adanorm, rmsnorm, none): batch statistics would need their own per-time-step running statistics")

// LSTMConfig is the preset of --model lstm: a one-layer LSTM language model
// on the data (words of sotu, moby-dick, words:FILE: the word preset's
// padded sentence batches; characters of --data text or a file), plain
// against LayerNorm, the comparison of Ba et al. 2016 and of finding
// (vii). Adam at 3e-3 without warmup, as LSTM language models are trained.
func LSTMConfig(data string) Config {
	c := DefaultConfig()
	if datasets.IsWordSet(data) {
		c = WordConfig(data)
	}
	c.Model, c.Data = ModelLSTM, data
	// The LSTM takes padded sentence batches of --batch rows and its own
	// embedding: the word preset's token budgets and fairseq input are the
	// Transformer's (checkLSTM refuses them when given).
	c.MaxTokens, c.Input, c.TieEmbeddings = 0, InputLearned, false
	// Nor is the rest of the authors' recipe its own: Ba et al.'s LSTM
	// language model trains on the mean loss without smoothing, dropout or
	// weight decay.
	c.Loss, c.LabelSmoothing, c.Dropout, c.WeightDecay = LossMean, 0, 0, 0
	c.TiesBySeed, c.RowMultiple = false, 0
	// Whole sentences of up to 99 words (1.3% of sotu's sentences, 5% of
	// its tokens are longer and left out), 10 a batch: about the 1,000
	// positions a step of 32 rows of 32 that the preset had when sentences
	// were cut into 31-token pieces.
	c.SeqLen, c.Batch = 100, 10
	c.Steps = 1200 // its own length, not the word Transformer's 4,500
	c.Variants = []string{"none", "layernorm"}
	c.Layers, c.DModel = 1, 64
	c.LR, c.Warmup = 3e-3, 0
	if c.Data == "text" {
		c.Steps, c.SeqLen = 1000, 64
	}
	return c
}

// checkLSTM checks the LSTM's sizes (no heads; the sequence cap).
func (c Config) checkLSTM(add func(string, ...any)) {
	switch {
	case c.Layers < 1 || c.DModel < 1:
		add("lstm sizes layers=%d d-model=%d: each must be ≥ 1", c.Layers, c.DModel)
	case c.DModel > MaxDModel:
		add("d-model %d: want ≤ %d", c.DModel, MaxDModel)
	case c.Layers > MaxLayers:
		add("layers %d: want ≤ %d", c.Layers, MaxLayers)
	case c.SeqLen < 1 || c.SeqLen > MaxLSTMSeq:
		add("seq-len %d: the lstm unrolls 1 to %d time steps", c.SeqLen, MaxLSTMSeq)
	}
	if c.Placement != "" {
		add("placement %s: model lstm has no Transformer blocks; --placement is for transformer and classifier", c.Placement)
	}
	if c.MaxTokens > 0 {
		add("max-tokens %d: model lstm takes fixed batches of --batch sentences; token budgets are for the transformer and classifier", c.MaxTokens)
	}
	if c.TieEmbeddings || (c.Input != "" && c.Input != InputLearned) {
		add("model lstm has its own embedding: --input fairseq and --tie-embeddings are for the transformer")
	}
}
