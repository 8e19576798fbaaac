package train

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/normtop/normtop/nn"
	"github.com/normtop/normtop/norm"
	"github.com/normtop/normtop/normspec"
	"github.com/normtop/normtop/probes"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// variant is one normalization variant's copy of the model, with all the
// state its training goroutine owns. This file is one variant's training
// from start to end: its weights, norm layers and two graphs (newVariant),
// its loop (train), one step (step: forward, backward, probes, Adam), and
// its evaluation; the Runner (runner.go) runs one per variant and seed.
type variant struct {
	idx     int
	spec    string
	seed    int64
	ncfg    normspec.Config
	lr      float64
	layers  []*norm.Layer // one per model site, in site order
	weights []*tensor.Dense
	train   *net
	eval    *net
	opt     *nn.Adam
	coll    *probes.Collector
	batches *batcher
	taps    []*normspec.Taps
	feeds   [][]int   // per site: the params its output multiplies (gw_norm)
	gw      []float64 // per site: gw_norm of the last step, reused
}

// newVariant builds the idx-th training of the run: variant spec (the
// specIdx-th of Config.Variants, parsed as ncfg) under seed.
func (r *Runner) newVariant(idx, specIdx int, spec string, ncfg normspec.Config, seed int64, init [][]float64) (*variant, error) {
	c, dt := r.cfg, r.dtype()
	c.Seed = seed
	v := &variant{idx: idx, spec: spec, seed: seed, ncfg: ncfg, lr: c.LR}
	if lr, ok := c.VariantLR[specIdx]; ok {
		v.lr = lr
	}
	for k, ws := range r.model.Weights() {
		v.weights = append(v.weights, toTensor(init[k], dt, ws.Shape...))
	}
	bySite, names, err := r.newLayers(v, ncfg, c.Warmup, dt)
	if err != nil {
		return nil, err
	}
	trainSpec, evalSpec := r.netSpecs(c, dt, v.weights, bySite)
	if v.train, err = buildNet(trainSpec); err != nil {
		return nil, err
	}
	if v.eval, err = buildNet(evalSpec); err != nil {
		return nil, err
	}
	var sizes []int
	for _, p := range v.train.params {
		sizes = append(sizes, p.Shape().TotalSize())
	}
	v.opt = nn.NewAdam(sizes)
	v.opt.WeightDecay = r.cfg.WeightDecay
	v.feeds, v.gw = weightFeeds(r.model, v.train.params), make([]float64, len(v.layers))
	if v.batches, err = r.src.newBatcher(c); err != nil {
		return nil, err
	}
	var opts []probes.Option
	if ncfg.Kind == normspec.PowerNorm {
		opts = append(opts, probes.WithAlphaBwd(ncfg.AlphaBwd))
	}
	v.coll = probes.NewCollector(idx, names, c.Probes, opts...)
	v.taps = make([]*normspec.Taps, len(v.layers))
	for k, l := range v.layers {
		v.taps[k] = l.Taps()
	}
	return v, nil
}

// newLayers makes the variant's norm layer at every site of the model, in
// the model's order, into v.layers; it returns them by site name too, and
// the site names in order.
func (r *Runner) newLayers(v *variant, ncfg normspec.Config, warmup int, dt tensor.Dtype) (map[string]*norm.Layer, []string, error) {
	bySite := map[string]*norm.Layer{}
	var names []string
	for _, s := range r.model.Sites() {
		l, err := norm.NewLayer(ncfg, normSite(s, warmup, dt))
		if err != nil {
			return nil, nil, fmt.Errorf("site %s: %w", s.Name, err)
		}
		v.layers = append(v.layers, l)
		bySite[s.Name] = l
		names = append(names, s.Name)
	}
	return bySite, names, nil
}

// netSpecs are the variant's two graphs: the training graph (dropout on,
// the batcher's shape: a token budget's MaxTokens positions with a Layout
// per batch, or fixed batches) and the evaluation graph (no dropout, the
// evaluation batches' fixed shape).
func (r *Runner) netSpecs(c Config, dt tensor.Dtype, weights []*tensor.Dense, bySite map[string]*norm.Layer) (train, eval netSpec) {
	apply := func(site string, x *G.Node) (*G.Node, []*G.Node, error) {
		l, ok := bySite[site]
		if !ok {
			return nil, nil, fmt.Errorf("no layer for site %s", site)
		}
		return l.Apply(x)
	}
	train = netSpec{model: r.model, dt: dt, batch: c.Batch, rows: c.Batch, pixels: r.src.pixels,
		weights: weights, norm: apply, seqNorm: seqLayers(bySite), train: true, dropP: c.Dropout,
		xent: nn.Xent{Sum: c.lossSum(), Smoothing: c.LabelSmoothing},
		// the same seed for every variant: the same dropout masks
		rng: nn.NewStream(c.Seed + 1)}
	evalBatch := c.Batch
	padded := r.src.corpus != nil || r.src.labelled != nil
	switch {
	case r.src.images != nil:
		evalBatch = len(r.src.val[0].targets)
	case c.MaxTokens > 0: // one graph of MaxTokens positions, a Layout per batch
		train.batch, train.tokens, train.padded, train.layout = r.src.maxRows, c.MaxTokens, true, true
		train.rows = c.MaxTokens
		if r.src.labelled != nil {
			train.rows = r.src.maxRows
		}
	case r.src.labelled != nil:
		train.tokens, train.padded = c.Batch*c.SeqLen, true
	default:
		train.rows, train.tokens, train.padded = c.Batch*c.SeqLen, c.Batch*c.SeqLen, padded
	}
	eval = train
	eval.train, eval.rng, eval.batch, eval.rows, eval.xent = false, nil, evalBatch, evalBatch, nn.Xent{}
	if c.MaxTokens > 0 && r.src.corpus != nil {
		// sentences: evaluated in token budgets like the training batches
		// (budgetBatches), on a graph of the same MaxTokens positions
		eval.batch, eval.rows = train.batch, train.rows
		return train, eval
	}
	eval.layout, eval.padded = false, padded
	if r.src.images == nil {
		eval.tokens = evalBatch * c.SeqLen
		if r.src.labelled == nil {
			eval.rows = evalBatch * c.SeqLen
		}
	}
	return train, eval
}

// train is one variant's training loop. Its collector builds each step's
// Frame from what the loop hands it (probes.Collector.Step, AddEval, Seal).
func (r *Runner) train(ctx context.Context, v *variant, start time.Time, emit func(probes.Frame)) error {
	c := r.cfg
	stopped := func(step int) { emit(v.coll.Stopped(step, time.Since(start))) }
	for step := 1; step <= r.steps; step++ {
		if ctx.Err() != nil {
			stopped(step - 1)
			return nil
		}
		d, err := r.step(v, step)
		if err != nil {
			stopped(step - 1)
			return err
		}
		if d.Diverged() {
			emit(v.coll.Seal(&d, probes.Diverged, time.Since(start)))
			return nil
		}
		end := step == r.steps
		if c.Probes.Spectrum > 0 && (v.coll.WantSpectrum(step) || end) {
			r.submitSpectrum(v, step)
		}
		evalErr := error(nil)
		if step%c.EvalEvery == 0 || end {
			var e probes.Eval
			if e, evalErr = r.evaluate(ctx, v, r.src.val, string(probes.SplitVal)); evalErr == nil {
				v.coll.AddEval(&d, e)
			}
		}
		if evalErr == nil && end && len(r.src.test) > 0 {
			var e probes.Eval
			if e, evalErr = r.evaluate(ctx, v, r.src.test, string(probes.SplitTest)); evalErr == nil {
				v.coll.AddEval(&d, e)
			}
		}
		if evalErr != nil && ctx.Err() == nil {
			stopped(step)
			return evalErr
		}
		status := probes.Running
		switch {
		case evalErr != nil, ctx.Err() != nil:
			// Cancelled (between eval batches: this step's Frame is the
			// last, without the unfinished evaluation).
			status = probes.Stopped
		case end:
			status = probes.Done
		}
		emit(v.coll.Seal(&d, status, time.Since(start)))
		if status == probes.Stopped {
			return nil
		}
	}
	return nil
}

// step runs one training step of v and returns the Draft of its Frame. When
// the collector finds the loss, a gradient or a tap not finite, the update is
// not applied and the Draft is the variant's last (Diverged).
func (r *Runner) step(v *variant, step int) (probes.Draft, error) {
	mask := v.coll.TapMask(step)
	for _, l := range v.layers {
		l.SetTapMask(mask)
	}
	padding := v.batches.next(v.train)
	for _, l := range v.layers {
		l.SetMask(padding)
	}
	loss, err := v.train.run()
	defer v.train.reset()
	if err != nil {
		return probes.Draft{}, fmt.Errorf("step %d: %w", step, err)
	}
	grads, err := v.train.gradData()
	if err != nil {
		return probes.Draft{}, fmt.Errorf("step %d: %w", step, err)
	}
	// A summed loss's parameter gradients are divided by the real tokens
	// after the backward (fairseq's multiply_grads): folded into the
	// optimizer's gradient scale, so no pass over the gradients is added.
	// The taps (g_*) keep the sum's scale; gw_norm, clipping and the update
	// see the divided gradients, the same as with the mean loss.
	div := 1.0
	if r.cfg.lossSum() && loss.Real > 0 {
		div = 1 / float64(loss.Real)
	}
	gnorm, finite := nn.GradNorm(grads)
	gnorm *= div
	ts := probes.TrainStep{Step: step, Epoch: v.batches.epoch(), Loss: loss.NLL, Taps: v.taps, GradsFinite: finite, Batch: v.batches.shape}
	if mask&normspec.TapGrad != 0 {
		gwNorms(v.gw, v.feeds, grads)
		for i := range v.gw {
			v.gw[i] *= div
		}
		ts.WeightGrads = v.gw
	}
	d := v.coll.Step(ts)
	if d.Diverged() {
		return d, nil
	}
	params, err := v.train.paramData()
	if err != nil {
		return probes.Draft{}, fmt.Errorf("step %d: %w", step, err)
	}
	v.opt.Step(params, grads, nn.LearningRate(v.lr, r.cfg.Warmup, step), div*nn.ClipScale(gnorm, r.cfg.Clip))
	return d, nil
}

// evaluate runs v's eval graph (norm layers in inference mode) over a fixed
// evaluation set: loss as the mean over real predictions, and accuracy
// (images) or bits per character (text).
//
// Cancelling ctx stops it between batches with ctx's error, so a long
// evaluation does not hold up a Ctrl-C.
func (r *Runner) evaluate(ctx context.Context, v *variant, set []evalBatch, split string) (probes.Eval, error) {
	for _, l := range v.layers {
		l.SetTraining(false)
	}
	defer func() {
		for _, l := range v.layers {
			l.SetTraining(true)
		}
	}()
	var sum float64
	var real, hits int
	for _, b := range set {
		if err := ctx.Err(); err != nil {
			return probes.Eval{}, err
		}
		if b.images != nil {
			v.eval.setImageRows(b.images, b.from, b.real)
			copy(v.eval.b.targets, b.targets)
		} else {
			if b.layout.Rows > 0 {
				v.eval.setLayout(b.layout)
			}
			v.eval.setTokens(b.tokens, b.targets, b.mask)
		}
		for _, l := range v.layers {
			l.SetMask(b.mask)
		}
		loss, err := v.eval.run()
		if err != nil {
			v.eval.reset()
			return probes.Eval{}, fmt.Errorf("%s evaluation: %w", split, err)
		}
		sum += loss.NLL * float64(b.real)
		real += b.real
		hits += v.eval.correct()
		v.eval.reset()
	}
	e := probes.Eval{Split: split, Loss: sum / float64(real)}
	switch probes.Metric(r.metric()) {
	case probes.MetricAccuracy:
		e.Metric = float64(hits) / float64(real)
	case probes.MetricPerplexity:
		e.Metric = math.Exp(e.Loss)
	default:
		e.Metric = e.Loss / math.Ln2
	}
	return e, nil
}

// submitSpectrum hands a float64 copy of the token-embedding matrix to the
// collector, which computes its spectrum on another goroutine.
func (r *Runner) submitSpectrum(v *variant, step int) {
	for k, ws := range r.model.Weights() {
		if ws.Name != "tok_emb" {
			continue
		}
		w := v.weights[k]
		emb := make([]float64, w.Size())
		switch d := w.Data().(type) {
		case []float32:
			for i, x := range d {
				emb[i] = float64(x)
			}
		case []float64:
			copy(emb, d)
		}
		v.coll.SubmitSpectrum(step, emb, ws.Shape[0], ws.Shape[1])
	}
}
