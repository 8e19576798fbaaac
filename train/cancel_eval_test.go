package train

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
)

// TestEvaluateStopsWhenCancelled: a cancelled context stops an evaluation
// before its next batch, with the context's error.
func TestEvaluateStopsWhenCancelled(t *testing.T) {
	c := tinyTransformer()
	c.Variants = []string{"layernorm"}
	r, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.evaluate(ctx, r.variants[0], r.src.val, "val"); !errors.Is(err, context.Canceled) {
		t.Fatalf("evaluate with a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := r.evaluate(context.Background(), r.variants[0], r.src.val, "val"); err != nil {
		t.Fatalf("evaluate after a cancelled one: %v", err)
	}
}

// TestCancelDuringLongEvaluation: cancelling while a long validation runs
// (the whole validation split, ~440 windows of 64 characters, one per batch,
// at d-model 256 and 4 blocks: over a second, even with AVX-512 kernels;
// at d-model 128 and 2 blocks it came to under the 300 ms the cancel waits)
// stops the run between two batches; the variant's last Frame is the step
// being evaluated, Stopped, without the unfinished evaluation. "Between two
// batches" is checked against the same machine's pace, not a wall-clock
// constant: Run must return sooner after the cancel than an evaluation of
// 40 of those batches takes, timed in the same test. A fixed bound (it was
// 1 s) failed on a loaded 2-core machine, where the 40 batches take seconds.
func TestCancelDuringLongEvaluation(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a mid-size transformer")
	}
	c := DefaultConfig()
	c.Variants = []string{"layernorm"}
	c.Layers, c.DModel, c.Heads, c.SeqLen, c.Batch = 4, 256, 4, 64, 1
	c.Steps, c.EvalEvery, c.EvalSize, c.Warmup = 10, 2, 1<<20, 0
	c.Probes.Spectrum = 0
	r, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.src.val); n < 100 {
		t.Fatalf("validation has %d batches; too few for a long evaluation", n)
	}
	const paceBatches = 40
	begin := time.Now()
	if _, err := r.evaluate(context.Background(), r.variants[0], r.src.val[:paceBatches], "val"); err != nil {
		t.Fatal(err)
	}
	pace := time.Since(begin)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled time.Time
	frames := collect(t, ctx, r, func(f probes.Frame) {
		if f.Step == 1 {
			// Step 2 trains one 64-character window (well under this)
			// and then evaluates.
			time.AfterFunc(300*time.Millisecond, func() { cancelled = time.Now(); cancel() })
		}
	})
	lag := time.Since(cancelled)
	fs := frames[0]
	last := fs[len(fs)-1]
	if last.Step != 2 || last.Status != probes.Stopped {
		t.Fatalf("last frame: step %d %v, want step 2 stopped", last.Step, last.Status)
	}
	if len(last.Eval) != 0 {
		t.Fatalf("the evaluation finished (%+v) although the cancel came during it (or before it on a very fast machine)", last.Eval)
	}
	if lag > pace {
		t.Errorf("Run returned %v after the cancel; evaluating %d batches took %v, so it went on evaluating", lag, paceBatches, pace)
	}
	t.Logf("Run returned %v after the cancel (%d batches: %v)", lag, paceBatches, pace)
}
