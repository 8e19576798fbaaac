package train

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// ErrTooLarge marks a configuration whose model would not fit in memory:
// errors.Is(err, ErrTooLarge) holds for NewRunner's refusal.
var ErrTooLarge = errors.New("model too large")

// ErrTooManySteps marks epochs × steps per epoch over MaxSteps.
var ErrTooManySteps = errors.New("too many steps")

// memEstimate is what a run's models need, in bytes, computed from the
// configuration and the data's shape before any weight is allocated.
type memEstimate struct {
	variants    int
	params      float64 // weights per variant (count)
	paramBytes  float64 // per variant: weights, gradients, Adam's m and v
	actBytes    float64 // per variant: training activations and their gradients, eval activations
	sharedBytes float64 // once: the float64 initial weights every variant copies
}

func (e memEstimate) total() float64 {
	return float64(e.variants)*(e.paramBytes+e.actBytes) + e.sharedBytes
}

// estimateMemory sizes the runs of c on model m. Activations are counted per
// node of the forward pass (a value, and in the training graph a gradient
// of the same size). What that leaves out (gorgonia's intermediate products
// of the backward pass, the heap's slack between collections, the corpus)
// is about what its per-node counts over-count: scripts/memory-check.sh
// found the total at 1.01-1.10, 0.89-0.90 and 0.88 of the peak RSS of the
// word LM with its four variants at d 64, 256 and 512 (docs/models.md
// "Memory and CPU time"). Everything is float64 so that no size can
// overflow. src gives the image models' eval batch;
// the token models' batches follow from c alone (NewRunner's netSpecs), so
// src may be nil for them.
func estimateMemory(c Config, m model, src *source) memEstimate {
	b := 4.0
	if c.Dtype == "float64" {
		b = 8
	}
	p := weightCount(m)
	seeds := float64(len(c.RunSeeds()))
	e := memEstimate{variants: len(c.Variants) * len(c.RunSeeds()), params: p,
		paramBytes:  p * (2*b + 16), // weight, gradient (dtype); Adam m, v (float64)
		sharedBytes: p * 8 * seeds,  // one float64 init per seed
	}
	// batch and evalBatch are the rows of activations perRow counts: images,
	// or token positions. A token model's eval batch is c.Batch rows of
	// SeqLen positions (netSpecs), except sentences in token budgets, which
	// are evaluated in the training graph's MaxTokens positions
	// (budgetBatches).
	batch := float64(c.Batch)
	evalBatch := batch
	if src != nil && len(src.val) > 0 && !c.Model.OnTokens() {
		evalBatch = float64(len(src.val[0].targets))
	}
	var perRow float64 // activation values per example (image) or per token (text)
	switch mm := m.(type) {
	case *mlp:
		perRow = float64(mm.in) + 6*float64(mm.hidden) + 2*float64(mm.classes)
	case *cnn:
		h1, w1 := float64(mm.h-4), float64(mm.w-4)
		h2, w2 := float64((mm.h-4)/2-4), float64((mm.w-4)/2-4)
		perRow = float64(mm.h*mm.w) +
			25*h1*w1 + 2*20*h1*w1 + 20*h1*w1/4 + // conv1: im2col, conv and ReLU, pooled
			20*25*h2*w2 + 2*50*h2*w2 + 50*h2*w2/4 + // conv2 likewise
			6*float64(mm.hidden) + 2*float64(mm.classes)
	case *resnet:
		perRow = mm.activations()
	case *transformer:
		perRow = transformerRow(mm)
	case *classifier:
		perRow = transformerRow(mm.transformer)
	case *lstm:
		// per layer: x·W_x and N_x, the op's 24·H of state and gradients,
		// its output; then the logits with their softmax
		perRow = float64(mm.d) + float64(mm.layers)*(8+24+1)*float64(mm.d) + 2*float64(mm.vocab)
	}
	if c.Model.OnTokens() { // rows of SeqLen positions, counted once
		batch *= float64(c.SeqLen)
		evalBatch *= float64(c.SeqLen)
	}
	if c.MaxTokens > 0 { // one training graph of MaxTokens positions
		batch = float64(c.MaxTokens)
		if c.Model == ModelTransformer {
			evalBatch = float64(c.MaxTokens)
		}
	}
	e.actBytes = b * perRow * (2*batch + evalBatch)
	return e
}

// weightCount is the number of weights of m.
func weightCount(m model) float64 {
	var p float64
	for _, w := range m.Weights() {
		n := 1.0
		for _, d := range w.Shape {
			n *= float64(d)
		}
		p += n
	}
	return p
}

// transformerRow is the activation values per token position: per block
// two norms, qkv, attention scores and softmax, attention output and
// projection, FFN up, ReLU and down, two residual sums; then the final norm
// and the logits with their softmax.
func transformerRow(m *transformer) float64 {
	d, s, hd, f := float64(m.d), float64(m.seq), float64(m.heads), float64(m.ffnWidth())
	block := 10*d + 2*f + 2*hd*s
	out := float64(m.out)
	if out == 0 {
		out = float64(m.vocab)
	}
	return 2*d + float64(m.layers)*block + d + 2*out
}

// checkMemory refuses a configuration whose estimate exceeds the memory
// available now (MemAvailable of /proc/meminfo, where there is one), with
// one line that says how much it would need.
func checkMemory(c Config, m model, src *source) error {
	avail, ok := availableMemory()
	if !ok {
		return nil
	}
	e := estimateMemory(c, m, src)
	if e.total() <= float64(avail) {
		return nil
	}
	return fmt.Errorf("%w: %s would need at least %s (%d trainings (variants × seeds) × %s: %s weights with gradients and nn.Adam state, %s activations) but %s of memory is available; reduce %s or the number of variants",
		ErrTooLarge, m.Name(), bytesString(e.total()), e.variants, bytesString(e.paramBytes+e.actBytes),
		bytesString(e.paramBytes), bytesString(e.actBytes), bytesString(float64(avail)), sizeFlags(m))
}

func sizeFlags(m model) string {
	switch m.(type) {
	case *transformer, *classifier, *lstm:
		return "--d-model, --layers, --seq-len, --batch"
	case *mlp, *cnn, *resnet:
		return "--batch, the image size"
	}
	return "--batch"
}

// availableMemory is MemAvailable from /proc/meminfo in bytes; ok is false
// where there is no such file (then nothing is refused).
var availableMemory = func() (uint64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	return parseMemAvailable(b)
}

func parseMemAvailable(meminfo []byte) (uint64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "MemAvailable:" {
			kb, err := strconv.ParseUint(string(f[1]), 10, 64)
			if err != nil {
				return 0, false
			}
			return kb << 10, true
		}
	}
	return 0, false
}

// bytesString is n in binary units with three significant digits.
func bytesString(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if n >= 100 {
		return strconv.FormatFloat(n, 'f', 0, 64) + " " + units[i]
	}
	return strconv.FormatFloat(n, 'g', 3, 64) + " " + units[i]
}
