package headless_test

import (
	"os"
	"time"

	"github.com/normtop/normtop/headless"
	"github.com/normtop/normtop/probes"
)

// A Printer turns the Frames of a run, live or read back from a run file,
// into log lines: a header, one line per log interval with every variant's
// standing, and an end line per variant. Frames of different variants may
// interleave; a step's line is printed once every running variant has
// passed it.
func ExampleNew() {
	meta := probes.RunMeta{
		RunID: "example", Model: "mlp", Data: "by hand", Metric: "accuracy",
		Variants: []probes.VariantMeta{{Name: "layernorm", Spec: "layernorm"}, {Name: "rmsnorm", Spec: "rmsnorm"}},
		Layers:   []string{"fc1", "fc2"},
	}
	p := headless.New(os.Stdout, meta, headless.Options{Format: headless.Text, Every: 2})
	losses := [2][4]float64{{2.3, 1.9, 1.2, 0.8}, {2.2, 1.7, 1.3, 0.9}} // [variant][step-1]
	for step := 1; step <= 4; step++ {
		for v := range losses {
			f := probes.Frame{Variant: v, Step: step, Epoch: float64(step) / 4, TrainLoss: losses[v][step-1],
				Elapsed: time.Duration(step) * time.Second, StepsPerSec: 1}
			if step%2 == 0 {
				// TrainLoss: the mean of the two steps since the previous
				// evaluation, as the Collector fills it.
				train := (losses[v][step-2] + losses[v][step-1]) / 2
				f.Eval = []probes.Eval{{Split: "val", Loss: losses[v][step-1] + 0.1, Metric: 0.5 + 0.1*float64(step), TrainLoss: train}}
			}
			if step == 4 {
				f.Status = probes.Done
			}
			if err := p.Frame(f); err != nil {
				return
			}
		}
	}
	p.Close()
	// Output:
	// # normtop run example: model mlp, data by hand, metric accuracy, variants
	// #       layernorm rmsnorm, log every 2 steps, one line per variant
	// step      2  ep 0.50     2.0s
	//   layernorm batch 1.900 val 2.000 acc 70.00% 1.0/s
	//   rmsnorm   batch 1.700 val 1.800 acc 70.00% 1.0/s
	// step      4  ep 1.00     4.0s
	//   layernorm done batch 0.8000 val 0.9000 acc 90.00% 1.0/s
	//   rmsnorm   done batch 0.9000 val 1.000 acc 90.00% 1.0/s
	// # end layernorm: done at step 4, train loss 1.000 (mean of steps 3–4), val loss
	// #       0.9000 acc 90.00%, gap -0.1000
	// # end rmsnorm: done at step 4, train loss 1.100 (mean of steps 3–4), val loss
	// #       1.000 acc 90.00%, gap -0.1000
}
