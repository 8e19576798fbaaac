package tui

import (
	"fmt"
	"math"
)

// LogMode is the charts' y scale.
type LogMode int

const (
	// logAuto: a log axis where the chart's positive values span more than
	// logDecades decades (gradient variances: 3.5e-10 beside 3.3e-7), a
	// linear one otherwise.
	logAuto LogMode = iota
	logOn
	logOff
)

// logDecades is how many decades a chart's values must span before the
// automatic scale turns logarithmic.
const logDecades = 3

// smoothWeights are the EMA weights s steps through, TensorBoard's
// smoothing: per point, v̂_t = w·v̂_{t−1} + (1−w)·x_t, debiased by
// 1 − w^t so that the first points are not pulled towards 0. Index 0 is
// off. The default (defaultSmooth) separates gaps of a few hundredths of a
// nat from batch noise ten times larger on a 1,000-step run.
var smoothWeights = []float64{0, 0.6, 0.9, 0.97, 0.99}

const defaultSmooth = 3

// smoothWeight is the weight of level i (0: off).
func smoothWeight(i int) float64 {
	if i <= 0 || i >= len(smoothWeights) {
		return 0
	}
	return smoothWeights[i]
}

// smoothNote names the smoothing level in the header ("" when off).
func smoothNote(i int) string {
	if w := smoothWeight(i); w > 0 {
		return fmt.Sprintf("ema %g", w)
	}
	return ""
}

// ema is the debiased exponential moving average of one series, fed point
// by point.
type ema struct {
	w, acc, pw float64 // weight, undebiased average, w^t
}

func newEMA(w float64) ema { return ema{w: w, pw: 1} }

// add feeds x and returns the debiased average so far.
func (e *ema) add(x float64) float64 {
	e.acc = e.w*e.acc + (1-e.w)*x
	e.pw *= e.w
	return e.acc / (1 - e.pw)
}

// smoothBuckets applies the EMA of weight w to a bucketed series in place:
// a bucket of n points decays the average by w^n (as n points would), and
// its last value stands for its points (a bucket keeps no mean). Each
// bucket collapses onto its smoothed value. w ≤ 0 leaves bs alone.
func smoothBuckets(bs []bucket, w float64) {
	if w <= 0 {
		return
	}
	var acc, pw = 0.0, 1.0
	n, d := 0, 1.0 // buckets mostly hold one count: w^n computed once for it
	for i := range bs {
		b := &bs[i]
		if b.Count == 0 || math.IsNaN(b.Last) || math.IsInf(b.Last, 0) {
			continue
		}
		if b.Count != n {
			n, d = b.Count, math.Pow(w, float64(b.Count))
		}
		acc = d*acc + (1-d)*b.Last
		pw *= d
		v := acc / (1 - pw)
		b.Min, b.Max, b.Last = v, v, v
	}
}

// logBuckets turns a series to log10 in place; values ≤ 0 become NaN (not
// drawn).
func logBuckets(bs []bucket) {
	for i := range bs {
		b := &bs[i]
		b.Min, b.Max, b.Last = log10OrNaN(b.Min), log10OrNaN(b.Max), log10OrNaN(b.Last)
	}
}

// spansDecades reports whether the positive values of the series span more
// than logDecades decades, and none is ≤ 0 (a log axis would drop it).
func spansDecades(bss ...[]bucket) bool {
	lo, hi := math.Inf(1), 0.0
	for _, bs := range bss {
		for i := range bs {
			b := &bs[i]
			if b.Count == 0 {
				continue
			}
			for _, v := range [2]float64{b.Min, b.Max} {
				switch {
				case math.IsNaN(v) || math.IsInf(v, 0):
				case v <= 0:
					return false
				default:
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
	}
	return hi > 0 && hi/lo > math.Pow(10, logDecades)
}

// useLog decides a chart's scale from the user's mode and, in auto, from
// its raw values; the decision is kept for the readouts and the header.
func (m *common) useLog(raw ...[]bucket) bool {
	switch m.st.Log {
	case logOn:
		m.lay.logShown = true
	case logOff:
		m.lay.logShown = false
	default:
		m.lay.logShown = spansDecades(raw...)
	}
	return m.lay.logShown
}

// rawBuckets is a series' stored buckets, untransformed; nil for nil.
func rawBuckets(h *history) []bucket {
	if h == nil {
		return nil
	}
	return h.View(seriesCapacity)
}
