package train

import (
	"fmt"
	"testing"

	"github.com/normtop/normtop/probes"
	"gorgonia.org/tensor"
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
			var want, got [][]probes.Frame
			var wantW, gotW [][]*tensor.Dense
			withEngine(newTapeEngine, func() { want, wantW = engineRun(t, c) })
			got, gotW = engineRun(t, c)
			for v := range want {
				if len(got[v]) != len(want[v]) || len(want[v]) != c.Steps {
					t.Fatalf("%s: %d frames, want %d (tape %d)", c.Variants[v], len(got[v]), c.Steps, len(want[v]))
				}
				for i := range want[v] {
					if x, y := frameText(got[v][i]), frameText(want[v][i]); x != y {
						t.Fatalf("%s step %d:\nexecutor %s\ntape     %s", c.Variants[v], i+1, x, y)
					}
				}
				for i := range wantW[v] {
					if x, y := fmt.Sprint(gotW[v][i].Data()), fmt.Sprint(wantW[v][i].Data()); x != y {
						t.Fatalf("%s: weight %d differs after %d steps", c.Variants[v], i, c.Steps)
					}
				}
			}
		})
	}
}
