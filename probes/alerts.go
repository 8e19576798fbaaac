package probes

import (
	"fmt"
	"math"
	"sort"
)

// Alert thresholds (issue #3).
const (
	OutlierFactor   = 10   // a probe value over OutlierFactor × its running median is an outlier
	OutlierWindow   = 32   // the running median is over this many previous measurements
	AdaFracLimit    = 0.01 // AdaNorm: φ ≤ 0 on more than 1% of entries
	OverfitEvals    = 3    // val loss rising while train loss falls on this many consecutive evals
	alertRearmQuiet = 10   // measurements without the condition that end an alert episode
)

// outlierProbes are the probes watched for outliers: the non-negative
// magnitudes. The signed means (in_mean, dx_mean, dy_mean) hover around zero,
// where "10× the median" means nothing, and ada_frac and pn_gamma have alerts
// of their own.
var outlierProbes = [...]Probe{DistMu, DistVar, DistPsi2, GMu, GVar, GPsi2, DxVar, DyVar,
	InStd, InMaxAbs, PNNu, GammaDrift, BetaNorm}

// Magnitude reports whether p is a non-negative magnitude, for which "10×
// its median" (an outlier, docs/findings.md) means something: the probes the
// live alert watches and the relative distances. The signed means and the
// fractions are not.
func (p Probe) Magnitude() bool {
	switch p {
	case RdistMu, RdistVar, RdistPsi2:
		return true
	}
	for _, q := range outlierProbes {
		if q == p {
			return true
		}
	}
	return false
}

// episode turns a per-step condition into one alert per episode: it fires
// when the condition first holds and stays quiet until the condition has been
// false for rearm consecutive checks.
type episode struct {
	active bool
	quiet  int
}

func (e *episode) fire(cond bool, rearm int) bool {
	if cond {
		e.quiet = 0
		if !e.active {
			e.active = true
			return true
		}
		return false
	}
	if e.active {
		e.quiet++
		if e.quiet >= rearm {
			e.active, e.quiet = false, 0
		}
	}
	return false
}

// medianWindow keeps the last OutlierWindow measurements of one series. The
// outlier test needs no sort: v > f·median exactly when more than half of the
// window (counting up to the lower median) lies below v/f, which one pass of
// comparisons decides.
type medianWindow struct {
	buf  [OutlierWindow]float64
	n    int // values held, ≤ OutlierWindow
	next int
	ep   episode
}

func (w *medianWindow) push(v float64) {
	w.buf[w.next] = v
	w.next = (w.next + 1) % OutlierWindow
	if w.n < OutlierWindow {
		w.n++
	}
}

// outlier reports whether v exceeds factor × the lower median of the window.
// It never fires before the window is full (warm-up) or when the median is
// not positive (a series that is exactly zero most of the time).
func (w *medianWindow) outlier(v, factor float64) bool {
	if w.n < OutlierWindow || !(v > 0) {
		return false
	}
	t := v / factor
	k := (w.n - 1) / 2 // lower median index in sorted order
	below, nonPos := 0, 0
	for _, x := range w.buf[:w.n] {
		if x < t {
			below++
		}
		if x <= 0 {
			nonPos++
		}
	}
	return below > k && nonPos <= k
}

// median returns the lower median; only called when an alert is built.
func (w *medianWindow) median() float64 {
	s := make([]float64, w.n)
	copy(s, w.buf[:w.n])
	sort.Float64s(s)
	return s[(w.n-1)/2]
}

// layerAlerts holds one layer's alert state.
type layerAlerts struct {
	windows [len(outlierProbes)]medianWindow
	nu, ada episode
}

// check appends the alerts of one layer's values at step.
func (la *layerAlerts) check(dst []Alert, step, layer int, name string, v *LayerValues, alphaB float64) []Alert {
	for j, p := range outlierProbes {
		x := v[p]
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		w := &la.windows[j]
		out := w.outlier(x, OutlierFactor)
		if w.ep.fire(out, alertRearmQuiet) {
			med := w.median()
			dst = append(dst, Alert{Kind: AlertOutlier, Step: step, Layer: layer, Probe: p,
				Value: x, Threshold: OutlierFactor * med,
				Msg: fmt.Sprintf("%s %s = %.4g at step %d, over %d× its running median %.4g",
					name, p, x, step, OutlierFactor, med)})
		}
		w.push(x)
	}
	if g := v[PNGamma]; !math.IsNaN(g) {
		thr := 2 / (1 - alphaB)
		if la.nu.fire(g > thr, alertRearmQuiet) {
			dst = append(dst, Alert{Kind: AlertNuGrowth, Step: step, Layer: layer, Probe: PNGamma,
				Value: g, Threshold: thr,
				Msg: fmt.Sprintf("%s Γ = %.4g at step %d > 2/(1-α_b) = %.4g: ν grows without bound",
					name, g, step, thr)})
		}
	}
	if a := v[AdaFrac]; !math.IsNaN(a) {
		if la.ada.fire(a > AdaFracLimit, alertRearmQuiet) {
			dst = append(dst, Alert{Kind: AlertAdaNegPhi, Step: step, Layer: layer, Probe: AdaFrac,
				Value: a, Threshold: AdaFracLimit,
				Msg: fmt.Sprintf("%s φ ≤ 0 on %.2f%% of entries at step %d (limit %.0f%%)",
					name, 100*a, step, 100*AdaFracLimit)})
		}
	}
	return dst
}

// Alerter applies the per-layer alert rules (outlier, ν-growth, AdaNorm φ)
// to layer values measured elsewhere, with the thresholds, warm-up and
// episodes of a Collector: a stream whose writer computes no alerts (the
// PyTorch hook, any trainer written to docs/formats.md) gets normtop's
// alerts from its reader. The ν-growth threshold uses DefaultAlphaBwd, as
// a stream does not say a layer's α_b.
type Alerter struct {
	layers []string
	state  []layerAlerts
}

// NewAlerter returns an Alerter for one variant whose layers are named
// layers (RunMeta.Layers).
func NewAlerter(layers []string) *Alerter {
	return &Alerter{layers: append([]string(nil), layers...), state: make([]layerAlerts, len(layers))}
}

// Alerts appends to dst the alerts of f's layer values, in layer order, as
// Collector.Frame adds its own; f must be the variant's next frame (the
// running medians advance). A frame without Layers (no probe due) adds
// nothing and changes nothing, as for a Collector.
func (a *Alerter) Alerts(dst []Alert, f *Frame) []Alert {
	for i := range f.Layers {
		if i >= len(a.state) {
			break
		}
		dst = a.state[i].check(dst, f.Step, i, a.layers[i], &f.Layers[i], DefaultAlphaBwd)
	}
	return dst
}
