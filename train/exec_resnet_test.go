package train

import (
	"testing"

	"github.com/normtop/normtop/probes"
)

// tinyResNetConfig is the resnet preset cut to a few steps of a small
// batch, with small validation and test sets.
func tinyResNetConfig(steps int, dtype string, variants ...string) Config {
	c := ResNetConfig()
	c.Steps, c.EvalEvery, c.EvalSize, c.TestSize, c.Batch, c.Dtype = steps, 2, 16, 16, 4, dtype
	c.Variants = variants
	return c
}

// TestResNetStepAllocations holds the resnet to TestStepAllocations' bound
// (≤ 100 allocations a training step, once warm) for the variants it
// trains (TestStepAllocations' list starts with layernorm, which resnet
// refuses).
func TestResNetStepAllocations(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector's instrumentation allocates")
	}
	for _, variant := range []string{"none", "batchnorm", "pn-v", "powernorm"} {
		t.Run(variant, func(t *testing.T) {
			checkStepAllocations(t, benchRunner(t, tinyResNetConfig(1, "float32"), variant, probes.DefaultIntervals()))
		})
	}
}

// TestResNetExecutorMatchesTapeMachine: as TestExecutorMatchesTapeMachine
// for the other models, the executor gives gorgonia's TapeMachine's frames
// and weights bit for bit on the resnet, both dtypes.
func TestResNetExecutorMatchesTapeMachine(t *testing.T) {
	for _, c := range []Config{
		tinyResNetConfig(4, "float32", "batchnorm", "pn-v", "none"),
		tinyResNetConfig(3, "float64", "powernorm"),
	} {
		t.Run(c.Dtype, func(t *testing.T) {
			checkMatchesTape(t, c)
		})
	}
}
