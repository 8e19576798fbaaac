package probes

import (
	"fmt"
	"github.com/normtop/normtop/normspec"
	"math"
	"sync"
)

// DefaultAlphaBwd is PowerNorm's default backward momentum α_b, used for the
// ν-growth alert threshold 2/(1-α_b) unless an Option says otherwise.
const DefaultAlphaBwd = 0.9

// Collector turns one variant's layer taps and losses into Frames. It keeps
// the state the probes need across steps: shadow running statistics, the
// running medians of the outlier alert, alert episodes, the train-loss
// average since the previous evaluation, and the embedding-spectrum worker.
//
// A Collector is used from its variant's training goroutine only; the
// spectrum worker it starts synchronises with it internally.
type Collector struct {
	variant  int
	layers   []string
	iv       Intervals
	momentum float64
	alphaB   []float64
	shadows  []shadow
	alerts   []layerAlerts

	lastGood      int  // last step whose loss and taps were all finite
	divergeAlerts bool // a divergence alert has been emitted

	lastEpoch, lastLoss float64 // of the last sealed Frame, for Stopped

	eval  evalTracker
	spect spectrumWorker
}

// Option adjusts a Collector at construction.
type Option func(*Collector)

// WithAlphaBwd sets α_b of every layer (the ν-growth alert fires when
// Γ > 2/(1-α_b)); pass the variant's PowerNorm AlphaBwd.
func WithAlphaBwd(a float64) Option {
	return func(c *Collector) {
		for i := range c.alphaB {
			c.alphaB[i] = a
		}
	}
}

// WithLayerAlphaBwd sets α_b of one layer (by index into the layer names).
// An index out of range is ignored.
func WithLayerAlphaBwd(layer int, a float64) Option {
	return func(c *Collector) {
		if layer >= 0 && layer < len(c.alphaB) {
			c.alphaB[layer] = a
		}
	}
}

// WithShadowMomentum sets the momentum m of the shadow EMAs (default 0.05,
// batchnorm's). Values outside (0, 1] are ignored.
func WithShadowMomentum(m float64) Option {
	return func(c *Collector) {
		if m > 0 && m <= 1 {
			c.momentum = m
		}
	}
}

// NewCollector returns the Collector of variant (an index into
// RunMeta.Variants) whose norm sites are named layers, sampling at iv.
func NewCollector(variant int, layers []string, iv Intervals, opts ...Option) *Collector {
	c := &Collector{
		variant:  variant,
		layers:   append([]string(nil), layers...),
		iv:       iv,
		momentum: DefaultShadowMomentum,
		alphaB:   make([]float64, len(layers)),
		shadows:  make([]shadow, len(layers)),
		alerts:   make([]layerAlerts, len(layers)),
	}
	for i := range c.alphaB {
		c.alphaB[i] = DefaultAlphaBwd
	}
	for _, o := range opts {
		o(c)
	}
	c.eval.reset()
	c.spect.done = sync.NewCond(&c.spect.mu)
	c.spect.compute = ComputeSpectrum
	return c
}

// TapMask returns the tap groups due at step; the trainer sets it on every
// layer before the step so that groups not due cost nothing.
func (c *Collector) TapMask(step int) normspec.TapMask { return c.iv.mask(step) }

// WantSpectrum reports whether the embedding spectrum is due at step.
func (c *Collector) WantSpectrum(step int) bool { return due(c.iv.Spectrum, step) }

// measure builds the measured part of a step's Frame: its identity, train
// loss, layer values and alerts, and a spectrum finished since the previous
// step. taps holds one entry per layer (nil for a layer that has none);
// measure copies what it needs, so the layers may overwrite their taps on the
// next step. Groups are reported only when due at step and present in the
// taps' Mask; everything else is NaN. Layers is nil when no group was due.
func (c *Collector) measure(step int, epoch, trainLoss float64, taps []*normspec.Taps) Frame {
	f := Frame{Variant: c.variant, Step: step, Epoch: epoch, TrainLoss: trainLoss, Status: Running}
	want := c.iv.mask(step)
	if want != 0 {
		f.Layers = make([]LayerValues, len(c.layers))
	}
	badWhat, badLayer, badValue := "", -1, 0.0
	if !finite(trainLoss) {
		badWhat, badValue = "train loss", trainLoss
	}
	for i := range c.layers {
		var t *normspec.Taps
		if i < len(taps) {
			t = taps[i]
		}
		v := EmptyLayerValues()
		if t != nil {
			var what string
			v, what = c.layerValues(i, t, want)
			if what != "" && badWhat == "" {
				badWhat, badLayer, badValue = c.layers[i]+" "+what, i, math.NaN()
			}
			f.Alerts = c.alerts[i].check(f.Alerts, step, i, c.layers[i], &v, c.alphaB[i])
		}
		if f.Layers != nil {
			f.Layers[i] = v
		}
	}
	if badWhat != "" {
		if !c.divergeAlerts {
			c.divergeAlerts = true
			f.Alerts = append(f.Alerts, Alert{Kind: AlertDivergence, Step: step, Layer: badLayer,
				Probe: NumProbes, Value: badValue,
				Msg: fmt.Sprintf("non-finite %s at step %d (last good %d)", badWhat, step, c.lastGood)})
		}
	} else if !c.divergeAlerts {
		c.lastGood = step
	}
	c.eval.addTrain(trainLoss)
	f.Spectrum = c.spect.take()
	return f
}

// layerValues computes one layer's values and updates its shadow statistics.
// what names the first non-finite value seen ("" if none).
func (c *Collector) layerValues(i int, t *normspec.Taps, want normspec.TapMask) (v LayerValues, what string) {
	v = EmptyLayerValues()
	if t.NonFinite {
		what = "input, gradient or statistics"
	}
	report := want & t.Mask
	if t.Mask&normspec.TapStats != 0 {
		ds := c.distances(i, t)
		for _, b := range []struct {
			batch []float64
			d     float64
			p     Probe
		}{{t.BatchMean, ds.abs[0], DistMu}, {t.BatchVar, ds.abs[1], DistVar}, {t.BatchPsi2, ds.abs[2], DistPsi2}} {
			if what == "" && b.batch != nil && !finite(b.d) {
				what = b.p.String()
			}
		}
		if report&normspec.TapStats != 0 {
			v[DistMu], v[DistVar], v[DistPsi2] = ds.abs[0], ds.abs[1], ds.abs[2]
			v[RdistMu], v[RdistVar], v[RdistPsi2] = ds.rel[0], ds.rel[1], ds.rel[2]
			v[InMean], v[InStd], v[InMaxAbs] = t.InMean, t.InStd, t.InMaxAbs
			v[AdaFrac] = t.AdaFrac
			v[HNorm], v[HNormCV] = t.HNorm, t.HNormCV
		}
	}
	if report&(normspec.TapStats|normspec.TapGrad) != 0 {
		v[PNGamma] = t.PNGamma // filled in backward, with ν; reported with either group
	}
	if report&normspec.TapGrad != 0 {
		v[GMu], v[GVar], v[GPsi2] = t.GMu, t.GVar, t.GPsi2
		v[DxMean], v[DxVar], v[DyMean], v[DyVar] = t.DxMean, t.DxVar, t.DyMean, t.DyVar
		v[PNNu] = t.NuNorm
	}
	if report&normspec.TapParams != 0 {
		v[GammaDrift], v[BetaNorm] = t.GammaDrift, t.BetaNorm
	}
	if what == "" {
		for p, x := range v {
			if math.IsInf(x, 0) {
				what = Probe(p).String()
				break
			}
		}
	}
	return v, what
}

// layerDists are one layer's distances at one step: abs holds dist_mu,
// dist_var, dist_psi2 and rel rdist_mu, rdist_var, rdist_psi2.
type layerDists struct{ abs, rel [3]float64 }

// distances returns the plain and relative distances of layer i against the
// running statistics before this batch's update — the layer's own where it
// has them, the shadow EMAs otherwise — and then folds the batch into the
// shadows it used. A statistic whose distance is not finite (a NaN or Inf in
// the batch) is not folded in, so one bad batch does not poison a shadow for
// the rest of the run; the NaN itself reaches the divergence alert through
// Taps.NonFinite.
func (c *Collector) distances(i int, t *normspec.Taps) layerDists {
	var ds layerDists
	d := max(len(t.BatchMean), len(t.BatchVar), len(t.BatchPsi2))
	if d == 0 {
		nan := math.NaN()
		return layerDists{abs: [3]float64{nan, nan, nan}, rel: [3]float64{nan, nan, nan}}
	}
	sh := &c.shadows[i]
	mu := pick(t.RunMean, sh.mean.against(t.BatchMean))
	vr := pick(t.RunVar, sh.vari.against(t.BatchVar))
	ps := pick(t.RunPsi2, sh.psi2.against(t.BatchPsi2))
	ds.abs = [3]float64{dist(t.BatchMean, mu), dist(t.BatchVar, vr), dist(t.BatchPsi2, ps)}
	ds.rel = [3]float64{relDistMean(t.BatchMean, mu, vr), relDist(t.BatchVar, vr), relDist(t.BatchPsi2, ps)}
	if t.NonFinite {
		return ds
	}
	sh.update(c.momentum, t.N,
		shadowInput(t.BatchMean, t.RunMean, ds.abs[0]),
		shadowInput(t.BatchVar, t.RunVar, ds.abs[1]),
		shadowInput(t.BatchPsi2, t.RunPsi2, ds.abs[2]))
	return ds
}

// shadowInput is the batch statistic to fold into a shadow EMA, or nil when
// the layer has its own running statistic (the shadow is then unused) or the
// batch is not finite (its distance is NaN or Inf).
func shadowInput(batch, own []float64, dist float64) []float64 {
	if own != nil || !finite(dist) {
		return nil
	}
	return batch
}

func pick(own, shadow []float64) []float64 {
	if own != nil {
		return own
	}
	return shadow
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// diverge closes f as the Frame at which the divergence guard stopped the
// variant (Status Diverged) and makes its divergence alert name the last good
// step and why. If measure already put a divergence alert on f, that alert's
// message is replaced rather than a second one added.
func (c *Collector) diverge(f *Frame, why string) {
	c.finish(f, Diverged)
	good := min(c.lastGood, f.Step-1)
	msg := fmt.Sprintf("diverged at step %d (last good %d): %s", f.Step, good, why)
	c.divergeAlerts = true
	for i := range f.Alerts {
		if f.Alerts[i].Kind == AlertDivergence {
			f.Alerts[i].Msg = msg
			return
		}
	}
	f.Alerts = append(f.Alerts, Alert{Kind: AlertDivergence, Step: f.Step, Layer: -1, Probe: NumProbes,
		Value: f.TrainLoss, Msg: msg})
}

// finish closes f as the variant's last Frame with Status end (Done,
// Stopped or Diverged): it waits for a spectrum still being computed and
// attaches the newest finished one. It is the one place that ends a variant.
func (c *Collector) finish(f *Frame, end Status) {
	if s := c.spect.wait(); s != nil {
		f.Spectrum = s
	}
	f.Status = end
}
