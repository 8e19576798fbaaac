package train

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/normtop/normtop/probes"
	"gorgonia.org/tensor"
)

// Runner trains one copy of the configured model per variant, side by side,
// and turns every training step of every variant into a probes.Frame.
type Runner struct {
	cfg      Config
	src      *source
	model    model
	variants []*variant
	meta     probes.RunMeta
	steps    int
}

// NewRunner loads the data and builds one model per variant, all from the
// same initial weights (norm parameters aside, which start at γ=1, β=0).
// Errors caused by the data satisfy errors.Is(err, ErrData).
func NewRunner(cfg Config) (*Runner, error) { return NewRunnerContext(context.Background(), cfg) }

// NewRunnerContext is NewRunner that stops loading the data when ctx is
// cancelled; the error then satisfies errors.Is(err, ctx.Err()).
func NewRunnerContext(ctx context.Context, cfg Config) (*Runner, error) {
	specs, err := cfg.check()
	if err != nil {
		return nil, err
	}
	src, err := loadSource(ctx, cfg)
	if err != nil {
		return nil, err
	}
	r := &Runner{cfg: cfg, src: src}
	switch cfg.Model {
	case ModelMLP:
		r.model = newMLP(src.pixels, src.classes)
	case ModelCNN:
		r.model = newCNN(src.images.H, src.images.W, src.classes)
	case ModelResNet:
		r.model = newResNet(src.images.H, src.images.W, src.classes)
	case ModelTransformer:
		t := cfg.languageModel(src.vocab)
		t.padded = src.corpus != nil
		r.model = t
	case ModelClassifier:
		cl := newClassifier(src.vocab, src.classes, cfg.DModel, cfg.Layers, cfg.Heads, cfg.SeqLen, cfg.Placement)
		cl.input, cl.ffnHidden = cfg.Input, cfg.FFN
		r.model = cl
	case ModelLSTM:
		r.model = newLSTM(src.vocab, cfg.DModel, cfg.Layers, cfg.SeqLen)
	}
	if err := checkSites(cfg, specs, r.model, r.dtype()); err != nil {
		return nil, err
	}
	r.steps = cfg.Steps
	if r.steps == 0 {
		if cfg.Epochs > MaxSteps/src.perEpoch { // checked: the product must not wrap
			return nil, fmt.Errorf("%w: epochs %d × %d steps per epoch is more than %d", ErrTooManySteps, cfg.Epochs, src.perEpoch, MaxSteps)
		}
		r.steps = cfg.Epochs * src.perEpoch
	}
	if err := checkMemory(cfg, r.model, src); err != nil { // before any weight is allocated
		return nil, err
	}
	// Variant-major order: every seed of the first variant, then the
	// next, so that a variant's seeds sit side by side on every screen.
	seeds := cfg.RunSeeds()
	inits := make([][][]float64, len(seeds))
	for k, sd := range seeds {
		inits[k] = initModel(r.model, sd)
	}
	for i, spec := range cfg.Variants {
		for k, sd := range seeds {
			v, err := r.newVariant(len(r.variants), i, spec, specs[i], sd, inits[k])
			if err != nil {
				return nil, fmt.Errorf("variant %s: %w", spec, err)
			}
			r.variants = append(r.variants, v)
		}
	}
	r.meta = r.buildMeta()
	if err := r.measureInput(inits[0]); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Runner) dtype() tensor.Dtype {
	if r.cfg.Dtype == "float64" {
		return tensor.Float64
	}
	return tensor.Float32
}

// Config returns the run's configuration.
func (r *Runner) Config() Config { return r.cfg }

// Meta describes the run for the run-file header and the dashboards.
func (r *Runner) Meta() probes.RunMeta { return r.meta }

// Run trains every variant on its own goroutine and calls emit with each
// Frame: never concurrently, in step order per variant. A variant whose
// loss, gradients or taps turn NaN/Inf stops with Status Diverged before
// the bad update is applied; the others go on. Cancelling ctx stops every
// variant after its current step with Status Stopped. Run returns when all
// variants have stopped; its error reports failures other than divergence.
func (r *Runner) Run(ctx context.Context, emit func(probes.Frame)) error {
	var mu sync.Mutex
	send := func(f probes.Frame) {
		mu.Lock()
		defer mu.Unlock()
		emit(f)
	}
	start := time.Now()
	errs := make([]error, len(r.variants))
	var wg sync.WaitGroup
	for i, v := range r.variants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.train(ctx, v, start, send); err != nil {
				errs[i] = fmt.Errorf("variant %s: %w", v.spec, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
