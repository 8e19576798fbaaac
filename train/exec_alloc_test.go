package train

import (
	"testing"

	"github.com/normtop/normtop/probes"
)

// TestStepAllocations: once warm, a training step of every model and
// norm family (forward, backward, probes, Adam) allocates at most a few
// dozen small objects; the executor reuses every op's output. Before it, a
// transformer step allocated ~1,500 times. The bound is the goal
// (≤ 100 per step); BenchmarkSteps reports the counts and bytes.
func TestStepAllocations(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector's instrumentation allocates")
	}
	tiny := func(c Config) func(*testing.T) Config { return func(*testing.T) Config { return c } }
	tr := tinyTransformer()
	tr.Layers = 2
	mlp := MNISTConfig(ModelMLP)
	mlp.EvalSize, mlp.TestSize = 16, 16
	cnn := MNISTConfig(ModelCNN)
	cnn.EvalSize, cnn.TestSize, cnn.Batch = 16, 16, 4
	for _, m := range []struct {
		name string
		cfg  func(*testing.T) Config
	}{{"transformer", tiny(tr)}, {"mlp", tiny(mlp)}, {"cnn", tiny(cnn)}, {"words", tinyWords}, {"classifier", tinyClassifier}} {
		for _, variant := range []string{"layernorm", "batchnorm", "powernorm"} {
			t.Run(m.name+"/"+variant, func(t *testing.T) {
				checkStepAllocations(t, benchRunner(t, m.cfg(t), variant, probes.DefaultIntervals()))
			})
		}
	}
}

// checkStepAllocations wants a warm training step of r to allocate at
// most 100 times (3 steps warm it up; the mean over 10 more is judged).
func checkStepAllocations(t *testing.T, r *Runner) {
	t.Helper()
	step := 1
	for ; step <= 3; step++ {
		trainStep(t, r, step)
	}
	allocs := testing.AllocsPerRun(10, func() {
		trainStep(t, r, step)
		step++
	})
	t.Logf("%.1f allocations per step", allocs)
	if allocs > 100 {
		t.Errorf("%.1f allocations per step, want ≤ 100", allocs)
	}
}
