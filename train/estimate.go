package train

import (
	"errors"
	"fmt"
	"math"
)

// RunEstimate is what a run of a configuration will cost, computed from the
// configuration alone, before any data is loaded (EstimateRun).
type RunEstimate struct {
	Trainings  int     // variants × seeds
	Params     float64 // weights per training
	MemBytes   float64 // memory at the peak, as checkMemory counts it
	CPUSeconds float64 // CPU time of the whole run on the development machine (costModel)
}

// String is the estimate in one phrase, for the line a preset prints
// before it starts.
func (e RunEstimate) String() string {
	return fmt.Sprintf("%d trainings of %.1fM weights: about %s of memory and %s (%s on 2 idle cores)",
		e.Trainings, e.Params/1e6, bytesString(e.MemBytes), cpuString(e.CPUSeconds), wallString(e.CPUSeconds/2))
}

// cpuString is seconds of CPU time in the largest unit that keeps it ≥ 1.
func cpuString(sec float64) string {
	switch {
	case sec >= 3600:
		return fmt.Sprintf("%.3g CPU-hours", sec/3600)
	case sec >= 60:
		return fmt.Sprintf("%.3g CPU-minutes", sec/60)
	}
	return fmt.Sprintf("%.3g CPU-seconds", sec)
}

// wallString is seconds of wall-clock time in days, hours or minutes.
func wallString(sec float64) string {
	switch {
	case sec >= 2*86400:
		return fmt.Sprintf("%.3g days", sec/86400)
	case sec >= 3600:
		return fmt.Sprintf("%.3g hours", sec/3600)
	}
	return fmt.Sprintf("%.3g minutes", sec/60)
}

// ErrNoEstimate marks a configuration EstimateRun cannot size without its
// data: every model but the Transformer language model on word-level data
// with a vocabulary cap (--vocab), whose output width the cap fixes.
var ErrNoEstimate = errors.New("no estimate before the data is loaded")

// EstimateRun sizes a Transformer language model run on word-level data
// before its data is loaded: the vocabulary is the cap c.Vocab (the corpus
// may hold fewer words, never more), the batches' sizes follow from c. The
// memory is estimateMemory's, the CPU time costModel's.
func EstimateRun(c Config) (RunEstimate, error) {
	if err := c.Validate(); err != nil {
		return RunEstimate{}, err
	}
	if c.Model != ModelTransformer || c.Data == "text" || c.Vocab <= 0 {
		return RunEstimate{}, fmt.Errorf("%w: model %s on %s data (vocabulary cap %d); only the word-level Transformer with a vocabulary cap is sized before loading", ErrNoEstimate, c.Model, c.Data, c.Vocab)
	}
	m := c.languageModel(c.Vocab)
	m.padded = true
	mem := estimateMemory(c, m, nil)
	return RunEstimate{Trainings: mem.variants, Params: mem.params, MemBytes: mem.total(),
		CPUSeconds: float64(mem.variants) * costModel(c, m) / flopsPerCPUSecond}, nil
}

// CheckFits refuses the estimate when it is larger than the memory
// available now (MemAvailable; nothing is refused where that is unknown),
// with one line naming both: what a preset says before loading its data.
func (e RunEstimate) CheckFits() error {
	avail, ok := availableMemory()
	if !ok || e.MemBytes <= float64(avail) {
		return nil
	}
	return fmt.Errorf("%w: the run would need about %s (%d trainings (variants × seeds) of %.1fM weights) but %s of memory is available; reduce --d-model, --layers, --max-tokens or the number of variants",
		ErrTooLarge, bytesString(e.MemBytes), e.Trainings, e.Params/1e6, bytesString(float64(avail)))
}

// languageModel is the Transformer language model c trains over a
// vocabulary of vocab words (NewRunner's, and EstimateRun's).
func (c Config) languageModel(vocab int) *transformer {
	t := newTransformer(vocab, c.DModel, c.Layers, c.Heads, c.SeqLen, c.Placement)
	t.input, t.tie, t.ffnHidden = c.Input, c.TieEmbeddings, c.FFN
	return t
}

// costModel is the floating-point operations of one training of c on m:
// per step, a forward pass and a backward pass of twice its cost (3 × the
// forward FLOPs) over the step's positions (MaxTokens, or Batch × SeqLen:
// padding is computed too); per evaluation (every EvalEvery steps and at
// the end) a forward pass over the validation subset, and at the end one
// over the test subset, in eval batches of Batch rows of SeqLen positions.
// The forward FLOPs per position are transformerFLOPs'. What this leaves
// out (the norms, softmax, Adam, the probes) grows with d and the positions,
// not d², and is folded into the measured rate flopsPerCPUSecond.
func costModel(c Config, m *transformer) float64 {
	positions := float64(c.Batch * c.SeqLen)
	if c.MaxTokens > 0 {
		positions = float64(c.MaxTokens)
	}
	f := transformerFLOPs(m)
	steps := float64(c.Steps)
	evalRows := func(n int) float64 { // positions of n sentences in eval batches
		batches := math.Ceil(float64(n) / float64(c.Batch))
		return batches * float64(c.Batch*c.SeqLen)
	}
	evals := 1.0
	if c.EvalEvery > 0 {
		evals += math.Floor(steps / float64(c.EvalEvery))
	}
	test := c.TestSize
	if test <= 0 {
		test = c.EvalSize // the whole test split: at least as large; a floor
	}
	return steps*3*f*positions + evals*f*evalRows(c.EvalSize) + f*evalRows(test)
}

// transformerFLOPs is the forward pass's floating-point operations per
// token position (2 per multiply-add): per block the q, k, v projection
// (d × 3d), the attention's scores and weighted sum over at most SeqLen
// keys (2 × seq × d), the output projection (d × d) and the FFN (d × f,
// f × d); then the output layer (d × V).
func transformerFLOPs(m *transformer) float64 {
	d, f, s := float64(m.d), float64(m.ffnWidth()), float64(m.seq)
	block := 2 * (3*d*d + 2*s*d + d*d + 2*d*f)
	return float64(m.layers)*block + 2*d*float64(m.out)
}

// flopsPerCPUSecond is the rate costModel's FLOPs run at, measured on the
// paper-size word LM (d 512, 6 blocks, FFN 1,024, 4,096 tokens, 4
// variants, one step and the final evaluation: 81.2 CPU-seconds for
// 1.58·10¹² FLOPs; scripts/memory-check.sh) on the 2-core development
// machine (AMD EPYC, shared). Smaller models run at less of it (the
// element-wise work the model leaves out weighs more): the same script
// measured 0.74-0.78 of the estimate's rate at d 256, 0.41-0.44 at d 64.
const flopsPerCPUSecond = 1.95e10
