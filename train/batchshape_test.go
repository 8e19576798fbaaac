package train

import (
	"testing"

	"github.com/normtop/normtop/datasets"
	"github.com/normtop/normtop/probes"
)

// TestFramesCarryTheBatchShape: every training Frame says what its batch
// was. Fixed-size batches are Batch rows SeqLen wide (images 1 wide, their
// tokens the batch size); token-budget batches are the rows and width the
// data's own TokenBatcher gives for the same seed, step by step, and their
// tokens the real positions of its mask.
func TestFramesCarryTheBatchShape(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(*testing.T) Config
	}{
		{"words", tinyWords},
		{"words/max-tokens", tinyBudget(tinyWords)},
		{"classifier", tinyClassifier},
		{"classifier/max-tokens", tinyBudget(tinyClassifier)},
		{"characters", func(*testing.T) Config { c := tinyTransformer(); c.Steps = 4; return c }},
		{"mnist mlp", func(*testing.T) Config {
			c := MNISTConfig(ModelMLP)
			c.Steps, c.EvalEvery, c.EvalSize, c.TestSize, c.Batch = 3, 3, 16, 16, 8
			return c
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cfg(t)
			c.Variants = []string{"layernorm"}
			r, err := NewRunner(c)
			if err != nil {
				t.Fatal(err)
			}
			frames := collect(t, t.Context(), r, nil)[0]
			want := wantShapes(t, r, c, len(frames))
			for i, f := range frames {
				if f.Batch != want[i] {
					t.Errorf("step %d: batch %+v, want %+v", f.Step, f.Batch, want[i])
				}
			}
		})
	}
}

// wantShapes is the batch shape of each of the first n training steps,
// drawn from the data without the trainer's batcher.
func wantShapes(t *testing.T, r *Runner, c Config, n int) []probes.BatchShape {
	t.Helper()
	seed := c.RunSeeds()[0]
	out := make([]probes.BatchShape, n)
	count := func(real []bool) int {
		k := 0
		for _, x := range real {
			if x {
				k++
			}
		}
		return k
	}
	switch {
	case c.MaxTokens > 0:
		var tb *datasets.TokenBatcher
		var err error
		docs := r.src.labelled != nil
		if docs {
			tb, err = datasets.NewDocTokenBatcher(r.src.labelled.Train, c.tokenBudget(seed))
		} else {
			tb, err = datasets.NewSentenceTokenBatcher(r.src.corpus.Train, c.tokenBudget(seed))
		}
		if err != nil {
			t.Fatal(err)
		}
		in, tgt, real := make([]int32, c.MaxTokens), make([]int32, c.MaxTokens), make([]bool, c.MaxTokens)
		for i := range out {
			var rows, width int
			if docs {
				rows, width = tb.NextDocs(in, real, make([]int32, r.src.maxRows))
			} else {
				rows, width = tb.NextSentences(in, tgt, real)
			}
			if rows*width > c.MaxTokens || rows < 1 {
				t.Fatalf("step %d: %d×%d batch in a budget of %d", i+1, rows, width, c.MaxTokens)
			}
			out[i] = probes.BatchShape{Rows: rows, Width: width, Tokens: count(real)}
		}
	case r.src.images != nil:
		for i := range out {
			out[i] = probes.BatchShape{Rows: c.Batch, Width: 1, Tokens: c.Batch}
		}
	case r.src.corpus != nil:
		sb, err := datasets.NewSentenceBatcher(r.src.corpus.Train, c.Batch, c.SeqLen, seed, true)
		if err != nil {
			t.Fatal(err)
		}
		in, tgt, real := make([]int32, c.Batch*c.SeqLen), make([]int32, c.Batch*c.SeqLen), make([]bool, c.Batch*c.SeqLen)
		for i := range out {
			sb.Next(in, tgt, real)
			out[i] = probes.BatchShape{Rows: c.Batch, Width: c.SeqLen, Tokens: count(real)}
		}
	case r.src.labelled != nil:
		db, err := datasets.NewDocBatcher(r.src.labelled.Train, c.Batch, c.SeqLen, seed, true)
		if err != nil {
			t.Fatal(err)
		}
		in, real := make([]int32, c.Batch*c.SeqLen), make([]bool, c.Batch*c.SeqLen)
		for i := range out {
			db.Next(in, real, make([]int32, c.Batch))
			out[i] = probes.BatchShape{Rows: c.Batch, Width: c.SeqLen, Tokens: count(real)}
		}
	default: // characters: no padding
		for i := range out {
			out[i] = probes.BatchShape{Rows: c.Batch, Width: c.SeqLen, Tokens: c.Batch * c.SeqLen}
		}
	}
	for i, s := range out {
		if !s.Known() || !s.Valid() || s.Tokens == 0 {
			t.Fatalf("step %d: expected shape %+v is not a batch", i+1, s)
		}
	}
	return out
}
