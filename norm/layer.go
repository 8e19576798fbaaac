package norm

import (
	"fmt"
	"github.com/normtop/normtop/normspec"
	"math"
	"sync/atomic"

	"gorgonia.org/tensor"
)

// Site is the place of a layer in a model: its name, width and the defaults
// that come from the model rather than from the variant spec.
type Site struct {
	Name   string       // e.g. "block0.ln1"
	D      int          // features
	Heads  int          // default GroupScaling groups for PowerNorm (1 outside a Transformer)
	Warmup int          // default PowerNorm warmup = the trainer's LR warmup steps
	Dtype  tensor.Dtype // tensor.Float32 or tensor.Float64
	// SampleRows is how many consecutive rows belong to one sample: H·W for
	// an image site laid out as [B·H·W, C] rows, seq-len for a sequence
	// site, 1 (or 0) where every row is its own sample.
	SampleRows int
	// Spatial marks an image site: groupnorm's unit spans a sample's rows
	// (PyTorch's GroupNorm on [B,C,H,W]); elsewhere it is one row.
	Spatial bool
}

var layerIDs atomic.Uint64

// Layer is one normalization layer: its configuration, γ/β tensors,
// running state and taps. A Layer is used from one goroutine at a time.
type Layer struct {
	cfg    normspec.Config
	site   Site
	id     uint64
	d      int
	groups int // GroupScaling groups; 0 = no GroupScaling
	warmup int // powernorm W
	// The normalization unit of groupnorm and instancenorm (docs/math.md §8):
	// unitRows consecutive rows (one sample) × one of unitGroups blocks of
	// d/unitGroups features. 0 for the other variants.
	unitRows, unitGroups int

	training bool
	mask     []bool
	tapMask  normspec.TapMask
	taps     normspec.Taps

	gamma, beta *tensor.Dense // nil for variants without them

	step                         int // training forwards so far (t for powernorm)
	runMean, runVar, runPsi2, nu []float64

	tapBuf struct{ bm, bv, bp, rm, rv, rp []float64 }

	ref  *instance // used by Forward64/Backward64
	refG []float64 // γ/β as float64 for the reference entry points
	refB []float64
}

// NewLayer checks cfg against site and builds the layer with γ = 1, β = 0
// and the spec's initial running state. The layer starts in training mode
// with every tap group on.
func NewLayer(cfg normspec.Config, site Site) (*Layer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	name := site.Name
	if name == "" {
		name = "norm layer"
	}
	if site.D < 1 {
		return nil, fmt.Errorf("norm: %s: %s: d=%d features, need ≥ 1", name, cfg.Name(), site.D)
	}
	if site.Dtype != tensor.Float32 && site.Dtype != tensor.Float64 {
		return nil, fmt.Errorf("norm: %s: dtype %v not supported (valid: float32, float64)", name, site.Dtype)
	}
	if cfg.Conv == normspec.ConvC && site.D == 1 {
		return nil, fmt.Errorf("norm: %s: %s: conv=c needs d ≥ 2 (the unbiased variance divides by d-1); use conv=p", name, cfg.Name())
	}
	l := &Layer{cfg: cfg, site: site, id: layerIDs.Add(1), d: site.D, training: true, tapMask: normspec.TapAll}
	switch cfg.Kind {
	case normspec.PowerNorm:
		l.groups = cfg.Groups
		if l.groups == 0 {
			l.groups = max(site.Heads, 1)
		}
		l.warmup = cfg.Warmup
		if l.warmup < 0 {
			l.warmup = max(site.Warmup, 0)
		}
	case normspec.BatchNorm, normspec.PNV:
		l.groups = cfg.Groups
	}
	if l.groups > 0 && site.D%l.groups != 0 {
		return nil, fmt.Errorf("norm: %s: %s: d=%d is not divisible by groups=%d", name, cfg.Name(), site.D, l.groups)
	}
	if cfg.Kind.UnitFamily() {
		if err := l.setUnit(name); err != nil {
			return nil, err
		}
	}
	if cfg.Kind.HasAffine() {
		ones := make([]float64, site.D)
		for i := range ones {
			ones[i] = 1
		}
		l.gamma = denseOf(site.Dtype, ones)
		l.beta = denseOf(site.Dtype, make([]float64, site.D))
	}
	switch cfg.Kind {
	case normspec.BatchNorm:
		l.runMean = make([]float64, site.D)
		l.runVar = filled(site.D, 1)
	case normspec.PNV:
		l.runPsi2 = filled(site.D, 1)
	case normspec.PowerNorm:
		l.runPsi2 = filled(site.D, 1)
		l.nu = make([]float64, site.D)
	case normspec.InstanceNorm:
		if cfg.Running { // PyTorch's init, as batchnorm's
			l.runMean = make([]float64, site.D)
			l.runVar = filled(site.D, 1)
		}
	}
	l.resetTaps()
	return l, nil
}

func filled(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func denseOf(dt tensor.Dtype, v []float64) *tensor.Dense {
	if dt == tensor.Float32 {
		f := make([]float32, len(v))
		for i, x := range v {
			f[i] = float32(x)
		}
		return tensor.New(tensor.WithShape(len(v)), tensor.WithBacking(f))
	}
	return tensor.New(tensor.WithShape(len(v)), tensor.WithBacking(append([]float64(nil), v...)))
}

// SetTraining switches between training mode (batch statistics, running
// state and ν updates, taps) and inference mode (running statistics, no
// state change). Apply's ops read the mode when they run.
func (l *Layer) SetTraining(on bool) { l.training = on }

// Training reports the mode.
func (l *Layer) Training() bool { return l.training }

// SetMask marks the real rows of the next batches (false = padding). nil
// means every row is real. A mask whose length is not the batch's row count
// makes the op return an error.
func (l *Layer) SetMask(real []bool) {
	if real == nil {
		l.mask = nil
		return
	}
	l.mask = append(l.mask[:0], real...)
}

// SetTapMask selects the tap groups computed on the next training steps.
func (l *Layer) SetTapMask(m normspec.TapMask) { l.tapMask = m & normspec.TapAll }

// Taps returns the layer's taps, overwritten on every training step.
func (l *Layer) Taps() *normspec.Taps { return &l.taps }

// Name is the site name.
func (l *Layer) Name() string { return l.site.Name }

// Config is the variant configuration the layer was built with.
func (l *Layer) Config() normspec.Config { return l.cfg }

// Site is the site the layer was built for.
func (l *Layer) Site() Site { return l.site }

// Groups is the number of GroupScaling groups in effect (0 = none).
func (l *Layer) Groups() int { return l.groups }

// Warmup is PowerNorm's warmup W in effect.
func (l *Layer) Warmup() int { return l.warmup }

// Params returns the layer's γ and β tensors (nil, nil for variants without
// them). Apply binds its γ/β nodes to these tensors, so an optimizer that
// updates node values in place updates every graph the layer is in.
func (l *Layer) Params() (gamma, beta *tensor.Dense) { return l.gamma, l.beta }

func (l *Layer) newInstance() *instance { return &instance{l: l} }

var nan = math.NaN()

// resetTaps marks every tap as not computed.
func (l *Layer) resetTaps() {
	l.taps = normspec.Taps{
		Step: l.step, D: l.d,
		InMean: nan, InStd: nan, InMaxAbs: nan, AdaFrac: nan, PNGamma: nan,
		GMu: nan, GVar: nan, GPsi2: nan, DxMean: nan, DxVar: nan, DyMean: nan, DyVar: nan,
		NuNorm: nan, GammaDrift: nan, BetaNorm: nan, HNorm: nan, HNormCV: nan,
	}
}
