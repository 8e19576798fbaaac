package findings

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// fakeTrainer writes a synthetic run file for `normtop train args`: the
// model (--model, default transformer), variants and seeds of the args,
// --steps steps of two layers. It stops, like the real trainer, when ctx is
// cancelled (the run file then says interrupted), and cancelAt cancels it
// at that step (0: never). calls counts the runs it trained, by --record
// path.
type fakeTrainer struct {
	calls    map[string]int
	cancel   context.CancelFunc
	cancelAt int
}

func arg(args []string, flag, def string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag {
			return args[i+1]
		}
	}
	return def
}

func (ft *fakeTrainer) train(ctx context.Context, args []string, path string, progress func(Progress)) error {
	if ft.calls == nil {
		ft.calls = map[string]int{}
	}
	ft.calls[path]++
	model := arg(args, "--model", "transformer")
	steps, _ := strconv.Atoi(arg(args, "--steps", "40"))
	m := probes.RunMeta{RunID: "fake-" + model, Model: model, Data: "synthetic", Metric: "bpc",
		Layers: []string{"l0", "l1"}, Start: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC),
		Config: map[string]string{"data": "synthetic", "d_model": "8", "steps": strconv.Itoa(steps)}}
	for _, spec := range strings.Split(arg(args, "--variants", "layernorm"), ",") {
		if strings.Contains(spec, "=") && !strings.Contains(spec, ":") {
			continue // an option of the previous spec: the fake needs none
		}
		name, _, _ := strings.Cut(spec, ":")
		for _, s := range strings.Split(arg(args, "--seeds", "1"), ",") {
			seed, _ := strconv.ParseInt(s, 10, 64)
			m.Variants = append(m.Variants, probes.VariantMeta{Name: name, Spec: spec, Seed: seed})
		}
	}
	w, err := record.Create(path, m)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	status := record.StatusCompleted
	for s := 1; s <= steps; s++ {
		if s == ft.cancelAt && ft.cancel != nil {
			ft.cancel()
		}
		if ctx.Err() != nil {
			status = record.StatusInterrupted
			break
		}
		for v := range m.Variants {
			f := probes.Frame{Variant: v, Step: s, TrainLoss: 2 + 0.1*rng.NormFloat64()}
			f.Layers = make([]probes.LayerValues, 2)
			for l := range f.Layers {
				f.Layers[l] = probes.EmptyLayerValues()
				f.Layers[l][probes.RdistVar] = 0.1 * (1 + 0.05*rng.NormFloat64())
				f.Layers[l][probes.GVar] = 1e-3 * (1 + 0.05*rng.NormFloat64())
			}
			if s == steps {
				f.Status = probes.Done
				f.Eval = []probes.Eval{{Split: "val", Loss: 2, Metric: 2 / math.Ln2, TrainLoss: 2}}
			}
			if err := w.Write(f); err != nil {
				return err
			}
		}
		progress(Progress{Step: s, Steps: steps})
	}
	if err := w.Close(record.End{Status: status}); err != nil {
		return err
	}
	if status == record.StatusInterrupted {
		return fmt.Errorf("stopped: %w", ctx.Err())
	}
	return nil
}
