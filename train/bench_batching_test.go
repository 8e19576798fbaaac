package train

import (
	"testing"
	"time"

	"github.com/normtop/normtop/datasets"
	"github.com/normtop/normtop/probes"
)

// BenchmarkWordBatching compares two ways of running the word preset's
// token-budget batches (sotu, --max-tokens 1024):
//
//   - "max-tokens": what the trainer does, one graph of MaxTokens
//     positions whose ops read each batch's Layout (rows × width, the
//     rest padding);
//   - "pad-to-max-rows": a fixed graph every batch would fit in, MaxRows
//     rows of seq-len positions (a batch of 512 two-token sentences needs
//     512 rows), as a trainer without run-time layouts would pad them.
//
// A third way, one graph per batch shape, would run exactly rows × width
// positions a step: "fill" reports that fraction of the budget, the most
// such graphs could save over "max-tokens" (at the cost of up to seq-len
// graphs, with their buffers, per variant).
func BenchmarkWordBatching(b *testing.B) {
	base := WordConfig("sotu")
	r0 := benchRunner(b, base, "layernorm", probes.DefaultIntervals())
	maxRows := r0.src.maxRows
	fill := budgetFill(b, r0, base)
	for _, c := range []struct {
		name string
		edit func(*Config)
	}{
		{"max-tokens", func(*Config) {}},
		{"pad-to-max-rows", func(c *Config) { c.MaxTokens, c.Batch = 0, maxRows }},
	} {
		b.Run(c.name, func(b *testing.B) {
			cfg := base
			c.edit(&cfg)
			r := benchRunner(b, cfg, "batchnorm", probes.DefaultIntervals())
			trainStep(b, r, 1)
			b.ResetTimer()
			t0 := time.Now()
			for i := 0; i < b.N; i++ {
				trainStep(b, r, i+2)
			}
			b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "steps/s")
			b.ReportMetric(float64(len(r.variants[0].train.b.tokens)), "positions/step")
			if c.name == "max-tokens" {
				b.ReportMetric(fill, "fill")
			}
		})
	}
}

// budgetFill is the mean over one epoch of rows × width / MaxTokens.
func budgetFill(b *testing.B, r *Runner, c Config) float64 {
	tb, err := datasets.NewSentenceTokenBatcher(r.src.corpus.Train, c.tokenBudget(c.Seed))
	if err != nil {
		b.Fatal(err)
	}
	n := c.MaxTokens
	in, tgt, real := make([]int32, n), make([]int32, n), make([]bool, n)
	used := 0
	for range tb.StepsPerEpoch() {
		rows, width := tb.NextSentences(in, tgt, real)
		used += rows * width
	}
	return float64(used) / float64(n*tb.StepsPerEpoch())
}
