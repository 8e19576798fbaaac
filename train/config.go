package train

import (
	"errors"
	"fmt"
	"strings"

	"github.com/normtop/normtop/datasets"
	"github.com/normtop/normtop/normspec"

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
	// Dropout is the rate of every dropout: on the embedded input and on
	// each residual branch (fairseq's --dropout).
	Dropout float64
	// Loss is how the training loss reduces over real tokens: LossMean, or
	// LossSum as fairseq's criterion does (the parameter gradients are then
	// divided by the token count after the backward pass, so the update is
	// the same while every gradient inside the graph, and every g_* probe,
	// is at the sum's scale). "" is LossMean. Token models only.
	Loss string
	// LabelSmoothing is ε of fairseq's label-smoothed cross-entropy
	// (training only; evaluations and every reported loss are the plain
	// negative log-likelihood). Token models only.
	LabelSmoothing float64
	// WeightDecay is fairseq's Adam weight decay: each step first shrinks
	// every parameter by lr·WeightDecay (decoupled from the gradient).
	WeightDecay float64
	// TiesBySeed and RowMultiple shape token-budget batches as fairseq
	// does (datasets.TokenBudget): ties in length broken by the seed, rows
	// rounded down to a multiple (its --required-batch-size-multiple 8).
	// Without MaxTokens they have nothing to shape and are not used.
	TiesBySeed  bool
	RowMultiple int
	Seed        int64 // weights, batch order and dropout masks
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
	// FFN is the Transformer FFN's hidden width; 0 is 4·DModel.
	FFN int
	// Vocab caps the word vocabulary of word-level data (the rarest
	// training words become <unk>); 0 keeps every word seen twice.
	Vocab int
	// Placement is where the norms sit in each block (model_transformer.go);
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

// The reductions of Config.Loss.
const (
	LossMean = "mean"
	LossSum  = "sum"
)

// lossSum tells whether the training loss is summed over real tokens.
func (c Config) lossSum() bool { return c.Loss == LossSum }

// tokenBudget is how the token-budget batches of the run with this seed
// are cut.
func (c Config) tokenBudget(seed int64) datasets.TokenBudget {
	return datasets.TokenBudget{MaxTokens: c.MaxTokens, SeqLen: c.SeqLen, Seed: seed,
		TiesBySeed: c.TiesBySeed, RowMultiple: c.RowMultiple}
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
// after a row-RMS layer-scale step (groups=1, docs/math.md §11); PN-V at
// BatchNorm's EMA rate (alpha 0.95 = 1 − momentum 0.05), as docs/findings.md
// (iii) compares them.
//
// Sentences are whole: the longest row is 176 positions (<s> and 175
// tokens, the authors' IWSLT filter), and a longer sentence is left out,
// never cut (0.1% of sotu's sentences, 0.7% of its tokens). The rest of
// the authors' recipe: the loss summed over real tokens and the gradients
// divided by their count after the backward, label smoothing 0.1, dropout
// 0.3, Adam's weight decay 1e-4, ties in length broken by the seed, rows
// rounded to a multiple of 8. What is scaled down, and why: docs/findings.md.
func WordConfig(data string) Config {
	c := DefaultConfig()
	c.Data = data
	c.Variants = []string{"layernorm", "batchnorm:groups=1", "pn-v:groups=1,alpha=0.95", "powernorm"}
	c.Steps, c.Batch, c.LR, c.Warmup = 4500, 32, 1e-3, 100
	c.Layers, c.DModel, c.Heads, c.SeqLen, c.Vocab = 2, 64, 4, WordSeqLen, 2000
	c.MaxTokens, c.Input, c.TieEmbeddings = 1024, InputFairseq, true
	c.Loss, c.LabelSmoothing, c.Dropout, c.WeightDecay = LossSum, 0.1, 0.3, 1e-4
	c.TiesBySeed, c.RowMultiple = true, 8
	c.EvalEvery, c.EvalSize, c.TestSize = 100, 256, 1000
	return c
}

// WordSeqLen is the word presets' longest row: <s> and 175 tokens, the
// length past which the PowerNorm authors' IWSLT14 preparation
// (prepare-iwslt14.sh, clean-corpus-n.perl 1 175) leaves a sentence out.
const WordSeqLen = 176

// PaperConfig is the word preset at the PowerNorm authors' size (--scale
// paper): fairseq's transformer_iwslt_de_en_v2 as their IWSLT14 script
// trains it (sIncerass/powernorm, trans-scripts/train/train-iwslt14.sh):
// d 512, 6 blocks of 4 heads, FFN 1,024, batches of up to 4,096 tokens,
// dropout 0.3, lr 1.5·10⁻³ after 8,000 warm-up steps, no clipping; the
// decoder's side only, as a language model on WordConfig's data. 20,000
// steps: the warm-up and as long again of decay. On 2 cores this is days
// of CPU time (EstimateRun; cmd prints it before it starts).
func PaperConfig(data string) Config {
	c := WordConfig(data)
	c.Layers, c.DModel, c.Heads, c.FFN = 6, 512, 4, 1024
	c.MaxTokens, c.Dropout = 4096, 0.3
	c.Steps, c.LR, c.Warmup, c.Clip = 20000, 1.5e-3, 8000, 0
	c.EvalEvery = 500
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
// loaded or allocated (docs/models.md "Size limits"). They keep every size product
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
