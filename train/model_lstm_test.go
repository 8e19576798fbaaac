package train

import (
	"math"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// tinyLSTMWords is the LSTM on a small word corpus: padded sentence rows.
func tinyLSTMWords(t *testing.T) Config {
	c := LSTMConfig("words")
	c.DataPath = wordCorpusFile(t, 20)
	c.DModel, c.SeqLen, c.Batch, c.Vocab = 8, 12, 6, 0
	c.Steps, c.EvalEvery, c.EvalSize, c.TestSize = 6, 3, 8, 8
	c.Probes.Spectrum = 3
	return c
}

// tinyLSTMText is the LSTM on Go's built-in character text: no padding.
func tinyLSTMText(*testing.T) Config {
	c := LSTMConfig("text")
	c.DModel, c.SeqLen, c.Batch = 8, 16, 4
	c.Steps, c.EvalEvery, c.EvalSize = 4, 2, 8
	return c
}

// TestLSTMTrains: every per-row variant trains the LSTM on words and on
// characters: finite losses, every site's probes, h_norm and h_norm_cv on
// the h sites (only there), and the same Frames from the same seed.
func TestLSTMTrains(t *testing.T) {
	for _, mk := range []struct {
		name string
		cfg  func(*testing.T) Config
	}{{"words", tinyLSTMWords}, {"text", tinyLSTMText}} {
		t.Run(mk.name, func(t *testing.T) {
			c := mk.cfg(t)
			c.Variants = lstmVariants
			r, err := NewRunner(c)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(r.Meta().Layers, ","); got != "lstm0.x,lstm0.h,lstm0.c" {
				t.Fatalf("sites %s", got)
			}
			frames := collect(t, t.Context(), r, nil)
			for i, fs := range frames {
				if len(fs) != c.Steps {
					t.Fatalf("variant %s: %d frames", c.Variants[i], len(fs))
				}
				for _, f := range fs {
					if math.IsNaN(f.TrainLoss) || math.IsInf(f.TrainLoss, 0) || f.Status == probes.Diverged {
						t.Fatalf("variant %s step %d: loss %v status %v", c.Variants[i], f.Step, f.TrainLoss, f.Status)
					}
				}
				lv := fs[len(fs)-1].Layers
				if lv == nil {
					t.Fatalf("variant %s: no probes at the last step", c.Variants[i])
				}
				if h := lv[1]; !(h[probes.HNorm] > 0) || !(h[probes.HNormCV] >= 0) {
					t.Errorf("variant %s: h_norm %v h_norm_cv %v", c.Variants[i], h[probes.HNorm], h[probes.HNormCV])
				}
				if x := lv[0]; !math.IsNaN(x[probes.HNorm]) || !(x[probes.InStd] > 0) || !(lv[2][probes.InStd] > 0) {
					t.Errorf("variant %s: x site h_norm %v, in_std %v / %v", c.Variants[i], x[probes.HNorm], x[probes.InStd], lv[2][probes.InStd])
				}
			}
			checkRepeatable(t, c, frames)
		})
	}
}

// TestLSTMPaddingIsInvisible: on sentence batches, what stands in the
// padding positions changes neither the loss nor any gradient of the LSTM
// (N_x's statistics, the recurrence, N_h's and N_c's, the loss).
func TestLSTMPaddingIsInvisible(t *testing.T) {
	for _, variant := range []string{"none", "layernorm", "rmsnorm", "adanorm"} {
		t.Run(variant, func(t *testing.T) {
			c := tinyLSTMWords(t)
			c.Variants, c.Dtype, c.Layers = []string{variant}, "float64", 2
			r, err := NewRunner(c)
			if err != nil {
				t.Fatal(err)
			}
			checkPaddingInvisible(t, r, false)
		})
	}
}

// TestLSTMBadConfig: a sequence length of 0 or above the cap and a
// batch-statistics variant are refused, each with one line naming it.
func TestLSTMBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"seq 0", func(c *Config) { c.SeqLen = 0 }, "seq-len 0: the lstm unrolls 1 to 1024 time steps"},
		{"seq over cap", func(c *Config) { c.SeqLen = MaxLSTMSeq + 1 }, "seq-len 1025"},
		{"batchnorm", func(c *Config) { c.Variants = []string{"none", "batchnorm"} }, `variant "batchnorm": batchnorm: model lstm takes per-row variants only`},
		{"powernorm", func(c *Config) { c.Variants = []string{"powernorm"} }, `variant "powernorm": powernorm: model lstm takes per-row variants only`},
		{"mnist", func(c *Config) { c.Data = "mnist" }, `data "mnist": model lstm trains on text`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := LSTMConfig("text")
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line containing %q", err, tc.want)
			}
		})
	}
	for _, data := range []string{"text", "sotu", "moby-dick", "words"} {
		if err := LSTMConfig(data).Validate(); err != nil {
			t.Errorf("preset on %s: %v", data, err)
		}
	}
}

// TestLSTMStepAllocations: a warm LSTM training step allocates at most 100
// times (the bound), as every other model's (TestStepAllocations).
func TestLSTMStepAllocations(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector's instrumentation allocates")
	}
	for _, variant := range []string{"none", "layernorm", "rmsnorm"} {
		t.Run(variant, func(t *testing.T) {
			checkStepAllocations(t, benchRunner(t, tinyLSTMWords(t), variant, probes.DefaultIntervals()))
		})
	}
}

// BenchmarkLSTMSteps reports training steps per second of the LSTM preset
// (characters, H 64, batch 16 × 64 steps) per variant, default probes on,
// and its allocations per step.
func BenchmarkLSTMSteps(b *testing.B) {
	for _, variant := range []string{"none", "layernorm", "rmsnorm"} {
		b.Run(variant, func(b *testing.B) {
			r := benchRunner(b, LSTMConfig("text"), variant, probes.DefaultIntervals())
			benchSteps(b, r)
		})
	}
}
