package train

import (
	"context"
	"testing"

	"github.com/normtop/normtop/probes"
)

// firstLast returns a variant's mean train loss over its first and last k
// steps.
func firstLast(fs []probes.Frame, k int) (first, last float64) {
	for i := 0; i < k; i++ {
		first += fs[i].TrainLoss / float64(k)
		last += fs[len(fs)-1-i].TrainLoss / float64(k)
	}
	return first, last
}

// TestModelsLearn trains each model on its real data for a few hundred
// steps (fewer under -race) and wants the train loss well below its start
// and the validation loss below chance level. Under -race the cnn is left
// out: gorgonia's Conv2d (im2col loops) is ~50× slower there, 20 steps
// cost 30 CPU-seconds, and ExecutorMatchesTapeMachine/cnn already trains
// it under the detector; CI runs the whole test without -race.
func TestModelsLearn(t *testing.T) {
	mlp := MNISTConfig("mlp")
	mlp.Steps = 300
	cnn := MNISTConfig("cnn")
	cnn.Steps = 120
	tr := DefaultConfig()
	tr.Steps = 200
	if raceBuild {
		mlp.Steps, tr.Steps = 60, 200
		tr.DModel, tr.SeqLen, tr.Layers = 32, 32, 1
	}
	cases := []struct {
		cfg   Config
		ratio float64 // last-k mean loss must be below ratio × first-k mean
	}{
		{mlp, 0.3},
		{cnn, 0.3},
		{tr, 0.75},
	}
	for _, c := range cases {
		cfg := c.cfg
		cfg.Variants = []string{"layernorm", "batchnorm"}
		cfg.EvalEvery = cfg.Steps
		cfg.EvalSize = min(cfg.EvalSize, 1000)
		cfg.TestSize = cfg.EvalSize
		t.Run(string(cfg.Model), func(t *testing.T) {
			if raceBuild && cfg.Model == ModelCNN {
				t.Skip("cnn: 30 CPU-seconds under -race; run without -race")
			}
			r, err := NewRunner(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for v, fs := range collect(t, context.Background(), r, nil) {
				first, last := firstLast(fs, min(10, len(fs)/4))
				val := fs[len(fs)-1].Eval[0]
				t.Logf("%s %s: train loss %.3f → %.3f over %d steps; val loss %.3f metric %.4f",
					cfg.Model, cfg.Variants[v], first, last, len(fs), val.Loss, val.Metric)
				if !(last < c.ratio*first) {
					t.Errorf("%s: loss %.3f → %.3f, want below %.2f× the start", cfg.Variants[v], first, last, c.ratio)
				}
			}
		})
	}
}

// TestMLPOneEpoch: mlp on real MNIST reaches ≥ 95% validation accuracy
// within one epoch (1,719 steps of 32). Under -race it trains 400 steps and
// wants ≥ 90%.
func TestMLPOneEpoch(t *testing.T) {
	if testing.Short() {
		t.Skip("one MNIST epoch")
	}
	c := MNISTConfig("mlp")
	c.Variants = []string{"layernorm", "rmsnorm"}
	want := 0.95
	if raceBuild {
		c.Steps, c.Variants, want = 400, c.Variants[:1], 0.90
	}
	c.EvalEvery = 10000
	if raceBuild {
		c.TestSize = 1000
	}
	r, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	for v, fs := range collect(t, context.Background(), r, nil) {
		end := fs[len(fs)-1]
		if end.Status != probes.Done || len(end.Eval) != 2 {
			t.Fatalf("%s: ended %v with evals %+v", c.Variants[v], end.Status, end.Eval)
		}
		val, test := end.Eval[0], end.Eval[1]
		t.Logf("mlp %s after %d steps (epoch %.2f): val acc %.4f, test acc %.4f", c.Variants[v], end.Step, end.Epoch, val.Metric, test.Metric)
		if val.Metric < want {
			t.Errorf("%s: validation accuracy %.4f, want ≥ %.2f", c.Variants[v], val.Metric, want)
		}
	}
}
