package record_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// Reading a run file: Open it, read the run's header (Meta), then Next until
// io.EOF; End says how the run ended. The run is written here first, so the
// example is self-contained; a real one comes from `normtop train` (e.g.
// runs/latest). The same Reader reads a stream written by another trainer.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "normtop-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.ntr")
	if err := writeSmallRun(path); err != nil {
		fmt.Println(err)
		return
	}

	r, err := record.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	meta := r.Meta()
	fmt.Printf("run %s: model %s, metric %s, %d variants, layers %v\n",
		meta.RunID, meta.Model, meta.Metric, len(meta.Variants), meta.Layers)
	for {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			break // a run still being written has more later: call Next again
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s step %d: train loss %.2f", meta.Variants[f.Variant].Name, f.Step, f.TrainLoss)
		for _, e := range f.Eval {
			fmt.Printf(", %s loss %.2f", e.Split, e.Loss)
		}
		fmt.Println()
	}
	if end, ok := r.End(); ok {
		fmt.Println("ended:", end.Status)
	}
	// Output:
	// run example: model mlp, metric accuracy, 2 variants, layers [fc1 fc2]
	// layernorm step 1: train loss 2.30
	// batchnorm step 1: train loss 2.20
	// layernorm step 2: train loss 1.50, val loss 1.60
	// batchnorm step 2: train loss 1.40, val loss 1.70
	// ended: completed
}

// writeSmallRun records two steps of two variants, as the trainer does.
func writeSmallRun(path string) error {
	w, err := record.Create(path, probes.RunMeta{
		RunID: "example", Model: "mlp", Data: "by hand", Metric: "accuracy",
		Variants: []probes.VariantMeta{{Name: "layernorm", Spec: "layernorm"}, {Name: "batchnorm", Spec: "batchnorm"}},
		Layers:   []string{"fc1", "fc2"},
	})
	if err != nil {
		return err
	}
	losses := [2][2]float64{{2.3, 1.5}, {2.2, 1.4}} // [variant][step-1]
	for step := 1; step <= 2; step++ {
		for v := range losses {
			f := probes.Frame{Variant: v, Step: step, Epoch: float64(step) / 2, TrainLoss: losses[v][step-1]}
			if step == 2 {
				f.Status = probes.Done
				f.Eval = []probes.Eval{{Split: "val", Loss: 1.6 + 0.1*float64(v), Metric: 0.5}}
			}
			if err := w.Write(f); err != nil {
				return err
			}
		}
	}
	return w.Close(record.End{})
}
