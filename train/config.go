package train

import (
	"errors"
	"fmt"
	"github.com/normtop/normtop/normspec"
	"math"
	"strings"

	"github.com/normtop/normtop/probes"
)

// Config is a run's configuration: everything that determines it. The
// same Config (seed included) gives the same Frames.
type Config struct {
	Model    ModelKind
	Data     string   // mnist (mlp, cnn) | text (transformer)
	DataPath string   // "" = built-in (GoMNIST / Go's Opticks text); else an IDX directory or a text file
	Variants []string // norm specs, e.g. "powernorm:alpha_fwd=0.95"

	Steps  int // training steps per variant; 0 = Epochs × steps per epoch
	Epochs int // used when Steps is 0
	Batch  int // examples (mlp, cnn) or sequences (transformer)
	// MaxTokens > 0 batches sentences (documents) by a token budget, as
	// fairseq's --max-tokens: grouped by length, each batch at most
	// MaxTokens positions, padding included (datasets.TokenBatcher). 0 =
	// Batch sentences per batch. Word-level data only.
	MaxTokens int
	LR        float64
	// VariantLR overrides LR for single variants (index into Variants);
	// used to show the divergence guard on one variant of a run.
	VariantLR map[int]float64
	Warmup    int     // linear LR warmup steps, then inverse-sqrt decay; 0 = constant LR
	Clip      float64 // global gradient-norm clipping; 0 = off
	Dropout   float64
	Seed      int64 // weights, batch order and dropout masks
	// Seeds, when it holds more than one seed, trains every variant under
	// every seed in one run (Seed is then ignored): each seed gives its own
	// initial weights, batch order and dropout masks, shared by all the
	// variants of that seed.
	Seeds []int64

	EvalEvery int // validation every N steps (and at the end)
	EvalSize  int // fixed validation subset: images, or sequences of SeqLen
	TestSize  int // test evaluation at the end: images or sequences; 0 = the whole test split
	LogEvery  int // headless log interval (read by cmd)
	Probes    probes.Intervals

	// transformer (and classifier) sizes
	Layers, DModel, Heads, SeqLen int
	// Vocab caps the word vocabulary of word-level data (the rarest
	// training words become <unk>); 0 keeps every word seen twice.
	Vocab int
	// Placement is where the norms sit in each block (placement.go);
	// "" is pre. Only models with blocks take one.
	Placement Placement
	// Input is how token ids become the first block's input: InputFairseq
	// (√d-scaled embeddings over sinusoids, Xavier-uniform layers; the
	// PowerNorm authors' setting) or InputLearned (GPT-2's learned
	// positions, N(0, 0.02²)). "" is InputLearned.
	Input string
	// TieEmbeddings makes the language model's output layer the token
	// embedding (logits = h·tok_embᵀ, no output bias), as fairseq's
	// --share-decoder-input-output-embed.
	TieEmbeddings bool

	Dtype string // float32 (default) | float64
}

// DefaultConfig is the character preset (--data text or a text file):
// the small pre-norm character Transformer on Newton's Opticks, shipped
// with every Go installation, with the four variants whose differences
// the PowerNorm paper is about. It is also the base every other preset
// starts from. (Plain `normtop` runs WordConfig("sotu"): on contiguous
// character windows without padding, batch statistics behave too tamely
// to show the papers' effects.)
func DefaultConfig() Config {
	return Config{
		Model:     "transformer",
		Data:      "text",
		Variants:  []string{"layernorm", "batchnorm", "powernorm", "rmsnorm"},
		Steps:     1500,
		Batch:     16,
		LR:        3e-3,
		Warmup:    100,
		Clip:      1,
		Dropout:   0,
		Seed:      1,
		EvalEvery: 50,
		EvalSize:  64,
		LogEvery:  10,
		Probes:    probes.DefaultIntervals(),
		Layers:    2,
		DModel:    64,
		Heads:     4,
		SeqLen:    64,
		Dtype:     "float32",
		Input:     InputLearned,
	}
}

// WordConfig is the preset for a word-level language model on sentence
// batches (--data sotu, moby-dick or words:FILE), and what plain `normtop`
// runs on sotu (about 5 minutes on 2 cores): PowerNorm's comparison in its
// authors' setting, scaled to 2 cores. fairseq's batches (sentences
// grouped by length, up to 1,024 positions a batch, the padding masked
// out of every statistic) and input (√d-scaled embeddings over sinusoids,
// tied with the output layer), and the authors' BatchNorm and PN-V, each
// after a row-RMS layer-scale step (groups=1, NORMS.md §11); PN-V at
// BatchNorm's EMA rate (alpha 0.95 = 1 − momentum 0.05), as FINDINGS.md
// (iii) compares them.
func WordConfig(data string) Config {
	c := DefaultConfig()
	c.Data = data
	c.Variants = []string{"layernorm", "batchnorm:groups=1", "pn-v:groups=1,alpha=0.95", "powernorm"}
	c.Steps, c.Batch, c.LR, c.Warmup = 4500, 32, 1e-3, 100
	c.Layers, c.DModel, c.Heads, c.SeqLen, c.Vocab = 2, 64, 4, 32, 2000
	c.MaxTokens, c.Input, c.TieEmbeddings = 1024, InputFairseq, true
	c.EvalEvery, c.EvalSize, c.TestSize = 100, 256, 1000
	return c
}

// ClassifierConfig is the preset for the text classifier (--model
// classifier, --data spam): Xu et al.'s classification rows, where the gain
// and bias of LayerNorm can over-fit. Several epochs over a small set.
func ClassifierConfig() Config {
	c := DefaultConfig()
	c.Model, c.Data = ModelClassifier, "spam"
	c.Variants = []string{"layernorm", "layernorm-simple", "adanorm:c=0.3", "detachnorm"}
	c.Steps, c.Epochs, c.Batch, c.LR, c.Warmup = 0, 8, 32, 1e-3, 50
	c.Layers, c.DModel, c.Heads, c.SeqLen, c.Vocab = 1, 64, 4, 64, 8000
	c.EvalEvery, c.EvalSize = 50, 10000
	return c
}

// MaxRuns bounds variants × seeds in one run: each is a full copy of the
// model with its own goroutine, and the run file's series table grows with
// it.
const MaxRuns = 64

// RunSeeds is the list of seeds the run trains: Seeds when given, else Seed.
func (c Config) RunSeeds() []int64 {
	if len(c.Seeds) > 0 {
		return c.Seeds
	}
	return []int64{c.Seed}
}

// MNISTConfig is the image-model preset (model mlp or cnn): Adam 1e-3,
// batch 32 as in Xu et al.'s MNIST setting, one epoch.
func MNISTConfig(model ModelKind) Config {
	c := DefaultConfig()
	c.Model, c.Data = model, "mnist"
	c.Variants = []string{"none", "layernorm", "batchnorm", "rmsnorm", "powernorm"}
	c.Steps, c.Epochs = 0, 1
	c.Batch, c.LR, c.Warmup, c.Clip = 32, 1e-3, 0, 0
	c.EvalEvery, c.EvalSize = 200, 5000
	return c
}

// ResNetConfig is the preset of --model resnet: the ResNet-style CNN on
// MNIST (or an IDX set) with the variants defined on image sites, BatchNorm
// against PowerNorm's two steps. Batch 32 puts 32·28·28 = 25,088 values per
// channel into the first BN's statistics (ResNet-20 on CIFAR-10: 128·32·32).
// lr 3e-3 rather than the MNIST preset's 1e-3: after 300 steps (seed 1)
// every variant's validation accuracy was higher with it (batchnorm 86% vs
// 83%, powernorm 87% vs 62%).
func ResNetConfig() Config {
	c := MNISTConfig(ModelResNet)
	c.Variants = []string{"none", "batchnorm", "pn-v", "powernorm"}
	c.Steps, c.Epochs = 600, 0
	c.Batch, c.LR = 32, 3e-3
	c.EvalEvery, c.EvalSize = 200, 2000
	return c
}

// Upper bounds of the size options, checked by Validate before anything is
// loaded or allocated (README "Size limits"). They keep every size product
// far from overflow; whether a model within them fits in memory is checked
// separately, from its estimated size, once the data's shape is known.
const (
	MaxSteps    = 1_000_000_000 // steps, and epochs × steps per epoch
	MaxBatch    = 1 << 16
	MaxDModel   = 1 << 15
	MaxLayers   = 1 << 10
	MaxSeqLen   = 1 << 16
	MaxEvalSize = 1 << 24 // eval-size and test-size
	MaxTokens   = 1 << 22 // positions in a token-budget batch
)

// Validate reports the first problem in c as an error naming the option
// and what is valid. A bad variant spec is a *VariantError.
func (c Config) Validate() error {
	_, err := c.check()
	return err
}

// VariantError is a variant spec of Config.Variants that does not parse,
// or (from NewRunner) that does not fit a site of the model.
type VariantError struct {
	Spec string
	Err  error // normspec.Parse's, naming the variant or option at fault
}

func (e *VariantError) Error() string { return fmt.Sprintf("variant %q: %v", e.Spec, e.Err) }

func (e *VariantError) Unwrap() error { return e.Err }

// check is Validate returning the parsed variant specs, so that a Runner
// parses each spec once.
func (c Config) check() ([]normspec.Config, error) {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch {
	case c.Model.OnImages():
		if c.Data != "mnist" {
			add("data %q: model %s trains on mnist (an IDX directory)", c.Data, c.Model)
		}
		if c.Placement != "" {
			add("placement %s: model %s has no Transformer blocks; --placement is for transformer and classifier", c.Placement, c.Model)
		}
	case c.Model.OnTokens():
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
		}
		if IsWordData(c.Data) && c.SeqLen < 2 {
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
	default:
		add("model %q: want mlp, cnn, resnet, transformer, classifier or lstm", c.Model)
	}
	if len(c.Variants) == 0 {
		add("variants: none given; want at least one of %s", variantNames())
	}
	specs := make([]normspec.Config, len(c.Variants))
	parsed := make([]bool, len(c.Variants))
	for i, v := range c.Variants {
		var err error
		if specs[i], err = normspec.Parse(v); err != nil {
			errs = append(errs, &VariantError{Spec: v, Err: err})
		} else if specs[i].Kind == normspec.InstanceNorm && c.MaxTokens > 0 {
			// its statistics are per sequence, and a token-budget batch
			// changes the sequences' length every step
			errs = append(errs, &VariantError{Spec: v, Err: fmt.Errorf("instancenorm takes its statistics over each sequence's positions, which token-budget batches (--max-tokens %d) change every step; use --batch N", c.MaxTokens)})
		} else if k := specs[i].Kind; c.Model.Recurrent() && !k.RowFamily() && k != normspec.None {
			errs = append(errs, &VariantError{Spec: v, Err: fmt.Errorf("%s: %w", specs[i].Kind, errRecurrentVariant)})
		} else if !c.Model.Trains(specs[i].Kind) {
			add("variant %s: not defined on %s's image sites (a row there is one pixel's channels, not a sample); %s trains %s",
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
			add("variants: %q is the same variant as %q (both are %s); give each variant once", v, first, k)
			continue
		}
		canon[k] = v
	}
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
	case !c.Model.OnTokens() || !IsWordData(c.Data):
		add("max-tokens %d: model %s on %s data has no sentences to group; token budgets batch sentences and documents (--data sotu, moby-dick, words:FILE, spam)", c.MaxTokens, c.Model, c.Data)
	case c.MaxTokens < c.SeqLen:
		add("max-tokens %d is below the longest sentence, seq-len %d positions: want --max-tokens ≥ %d", c.MaxTokens, c.SeqLen, c.SeqLen)
	}
	// Comparisons written so that NaN fails them, and Inf checked apart:
	// a non-finite rate would make every variant diverge at step 1.
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
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return specs, nil
}

func variantNames() string {
	var names []string
	for _, v := range normspec.Variants() {
		names = append(names, v.Name)
	}
	return strings.Join(names, ", ")
}

// ErrData marks errors that come from the data (missing, unreadable or
// corrupt files, text too short for one batch) rather than from the
// configuration: errors.Is(err, ErrData) holds for them.
var ErrData = errors.New("data error")

type dataError struct{ err error }

func (e dataError) Error() string        { return e.err.Error() }
func (e dataError) Unwrap() error        { return e.err }
func (e dataError) Is(target error) bool { return target == ErrData }
