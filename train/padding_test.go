package train

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// wordCorpusFile writes a small word-level text: docs paragraphs of
// sentences of varying length drawn from a small vocabulary.
func wordCorpusFile(t *testing.T, docs int) string {
	t.Helper()
	words := strings.Fields("the a cat dog sat ran on under mat hill red blue big small quickly slowly")
	var b strings.Builder
	k := 0
	for d := 0; d < docs; d++ {
		for s := 0; s < 12; s++ {
			n := 2 + (s*7+d)%9
			for i := 0; i < n; i++ {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[k%len(words)])
				k += 1 + (i*d)%3
			}
			b.WriteString(". ")
		}
		b.WriteString("\n\n")
	}
	p := filepath.Join(t.TempDir(), "words.txt")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// classDirs writes dir/<class>/<n>.txt documents of varying length.
func classDirs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for c, class := range []string{"ham", "spam"} {
		if err := os.MkdirAll(filepath.Join(dir, class), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 30; i++ {
			var b strings.Builder
			for w := 0; w < 3+(i*5)%17; w++ {
				fmt.Fprintf(&b, "%s%d word%d ", class, w%4, (i+w+c)%7)
			}
			b.WriteString(".")
			if err := os.WriteFile(filepath.Join(dir, class, fmt.Sprintf("%02d.txt", i)), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func tinyWords(t *testing.T) Config {
	c := WordConfig("words")
	c.DataPath = wordCorpusFile(t, 20)
	c.Layers, c.DModel, c.Heads, c.SeqLen, c.Batch, c.Vocab = 1, 16, 2, 12, 6, 0
	c.MaxTokens = 0 // 6 sentences a batch; tinyBudget for token budgets
	c.Steps, c.EvalEvery, c.EvalSize, c.TestSize, c.Warmup = 6, 3, 8, 8, 2
	c.Probes.Spectrum = 3
	// The preset's dropout draws new masks on every run of a graph, which
	// tests that run one batch twice must not see; its summed loss, label
	// smoothing and weight decay stay on.
	c.Dropout = 0
	return c
}

// tinyBudget is cfg with token-budget batches of 43 positions.
func tinyBudget(cfg func(*testing.T) Config) func(*testing.T) Config {
	return func(t *testing.T) Config {
		c := cfg(t)
		c.MaxTokens = 43 // prime: every batch ends in padding past its rows
		return c
	}
}

// fairseqInput is cfg with fairseq's input (the word preset has it already).
func fairseqInput(cfg func(*testing.T) Config) func(*testing.T) Config {
	return func(t *testing.T) Config {
		c := cfg(t)
		c.Input = InputFairseq
		return c
	}
}

func tinyClassifier(t *testing.T) Config {
	c := ClassifierConfig()
	c.Data, c.DataPath = "docs", classDirs(t)
	c.Layers, c.DModel, c.Heads, c.SeqLen, c.Batch, c.Vocab = 1, 16, 2, 12, 6, 0
	c.Steps, c.Epochs, c.EvalEvery, c.EvalSize, c.Warmup = 6, 0, 3, 8, 2
	c.Probes.Spectrum = 3
	return c
}

// TestPaddingIsInvisible: what stands in the padding positions of a batch
// (token ids there) changes neither the loss nor any gradient, for every
// norm family (per-row, per-feature with and without the mean, PowerNorm,
// the norm zoo's per-sample units): the mask reaches attention, the norm
// statistics, the loss and the pooling. A mask that failed anywhere would
// let the padding's embeddings leak in.
func TestPaddingIsInvisible(t *testing.T) {
	for _, mk := range []struct {
		name string
		cfg  func(*testing.T) Config
	}{{"words", tinyWords}, {"classifier", tinyClassifier},
		{"words/max-tokens", tinyBudget(tinyWords)}, {"classifier/max-tokens", tinyBudget(tinyClassifier)},
		{"classifier/max-tokens/fairseq", fairseqInput(tinyBudget(tinyClassifier))}} {
		for _, variant := range []string{"layernorm", "batchnorm", "pn-v", "powernorm", "adanorm", "groupnorm:groups=4", "instancenorm"} {
			t.Run(mk.name+"/"+variant, func(t *testing.T) {
				c := mk.cfg(t)
				c.Variants, c.Dtype = []string{variant}, "float64"
				if c.MaxTokens > 0 && variant == "instancenorm" {
					t.Skip("instancenorm's per-sequence statistics need fixed sequences: refused with --max-tokens (TestValidate)")
				}
				r, err := NewRunner(c)
				if err != nil {
					t.Fatal(err)
				}
				checkPaddingInvisible(t, r, true)
			})
		}
	}
}

// checkPaddingInvisible runs r's first variant's training graph on its
// first batch twice, with <pad> (id 0) and then another token in the
// padding positions, and fails unless the loss and every gradient come out
// bit-identical. freeze turns the norm layers' training mode off for the
// two runs, so a layer with running state does not move it between them.
func checkPaddingInvisible(t *testing.T, r *Runner, freeze bool) {
	t.Helper()
	v := r.variants[0]
	b := v.batches
	mask := b.next(v.train)
	if mask == nil || !slices.Contains(mask, false) {
		t.Fatal("the test batch has no padding")
	}
	run := func(padToken int32) (float64, [][]float64) {
		in := append([]int32(nil), b.in...)
		for i, m := range mask {
			if !m {
				in[i] = padToken
			}
		}
		v.train.setTokens(in, b.tgt, mask)
		for _, l := range v.layers {
			l.SetMask(mask)
			if freeze {
				l.SetTraining(false)
				defer l.SetTraining(true)
			}
		}
		loss, err := v.train.run()
		if err != nil {
			t.Fatal(err)
		}
		defer v.train.reset()
		gs, err := v.train.gradData()
		if err != nil {
			t.Fatal(err)
		}
		var out [][]float64
		for _, g := range gs {
			out = append(out, append([]float64(nil), g.Float64s()...))
		}
		return loss.NLL, out
	}
	l0, g0 := run(0)
	l1, g1 := run(int32(r.src.vocab - 1))
	if l0 != l1 || math.IsNaN(l0) {
		t.Fatalf("loss %v with <pad> in the padding, %v with another token", l0, l1)
	}
	for i := range g0 {
		for k := range g0[i] {
			if g0[i][k] != g1[i][k] {
				t.Fatalf("gradient of %s[%d]: %v vs %v: the padding leaks", v.train.params[i].Name(), k, g0[i][k], g1[i][k])
			}
		}
	}
}

// TestWordModelsTrain runs both new models end to end for a few steps:
// finite losses, evaluations with the right metric, a spectrum, and the
// same frames from the same seed.
func TestWordModelsTrain(t *testing.T) {
	for _, mk := range []struct {
		name, metric string
		cfg          func(*testing.T) Config
	}{{"words", "ppl", tinyWords}, {"classifier", "accuracy", tinyClassifier},
		{"words/max-tokens", "ppl", tinyBudget(tinyWords)}, {"classifier/max-tokens", "accuracy", tinyBudget(tinyClassifier)}} {
		t.Run(mk.name, func(t *testing.T) {
			c := mk.cfg(t)
			c.Variants = []string{"layernorm", "batchnorm"}
			r, err := NewRunner(c)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Meta().Metric; got != mk.metric {
				t.Errorf("metric %q, want %q", got, mk.metric)
			}
			frames := collect(t, t.Context(), r, nil)
			for i, fs := range frames {
				if len(fs) != c.Steps {
					t.Fatalf("variant %d: %d frames", i, len(fs))
				}
				last := fs[len(fs)-1]
				var splits []string
				for _, f := range fs {
					if math.IsNaN(f.TrainLoss) || math.IsInf(f.TrainLoss, 0) {
						t.Fatalf("variant %d step %d: loss %v", i, f.Step, f.TrainLoss)
					}
					for _, e := range f.Eval {
						splits = append(splits, e.Split)
						if !(e.Metric > 0) {
							t.Errorf("variant %d %s metric %v", i, e.Split, e.Metric)
						}
					}
				}
				if got := strings.Join(splits, ","); got != "val,val,test" {
					t.Errorf("variant %d evaluations %s", i, got)
				}
				if last.Layers == nil {
					t.Errorf("variant %d: no probes at the last step", i)
				}
			}
			checkRepeatable(t, c, frames)
		})
	}
}
