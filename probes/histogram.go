package probes

import (
	"fmt"
	"math"
)

// A layer's input histogram: what the shape of a norm layer's input was at
// a step (heavy tails, skew, a second mode), beside the in_mean and in_std
// probes that chart its place and width. The bins are fixed for a run and
// stated once, in RunMeta.Histogram; python/normtop writes them (watch's
// histogram=) every spectrum_every steps, and the run file, the stream,
// the exports and the dashboard carry them unchanged (docs/formats.md
// "hist").

// HistUnitStd is the one unit of a histogram's edges this normtop knows:
// standard deviations of the layer's input around its mean, so that a bin
// means the same in every layer, variant and step.
const HistUnitStd = "std"

// MaxHistCount bounds one count: float64 holds every count up to it
// exactly (python/normtop brings them back as float64), and Total cannot
// overflow an int.
const MaxHistCount = 1 << 53

// MaxHistBins bounds a run's bin count, so a forged header cannot make
// every histogram line allocate much.
const MaxHistBins = 1024

// HistLayout is the bins every histogram of a run shares: Bins equal bins
// over [Lo, Hi), edge k at Lo + k·(Hi−Lo)/Bins, in Unit (HistUnitStd: an
// entry x is at z = (x − Mean)/Std).
type HistLayout struct {
	Bins   int
	Lo, Hi float64
	Unit   string
}

// Check is nil for a layout a reader accepts, else the reason it does not.
func (l HistLayout) Check() error {
	switch {
	case l.Bins < 2 || l.Bins > MaxHistBins:
		return fmt.Errorf("histogram has %d bins; want 2 to %d", l.Bins, MaxHistBins)
	case math.IsNaN(l.Lo) || math.IsNaN(l.Hi) || math.IsInf(l.Lo, 0) || math.IsInf(l.Hi, 0) || !(l.Lo < l.Hi):
		return fmt.Errorf("histogram range [%g, %g) is not a finite interval", l.Lo, l.Hi)
	case l.Unit != HistUnitStd:
		return fmt.Errorf("histogram unit %q (this normtop knows %q)", l.Unit, HistUnitStd)
	}
	return nil
}

// Edge is the k-th of the Bins+1 bin edges, in Unit.
func (l HistLayout) Edge(k int) float64 {
	return l.Lo + float64(k)*(l.Hi-l.Lo)/float64(l.Bins)
}

// Histogram is one layer's input histogram at a Frame's step, in its run's
// HistLayout: every real (unpadded) entry of the input is counted once, in
// Under (below Lo, −Inf included), Counts[k], Over (at or above Hi, +Inf
// included) or NaN.
type Histogram struct {
	Layer  int     // index into RunMeta.Layers
	Mean   float64 // over the finite entries; NaN when there is none
	Std    float64 // biased, over the finite entries; NaN when there is none
	Under  int
	Counts []int // one per bin
	Over   int
	NaN    int
}

// Total is the number of entries counted.
func (h *Histogram) Total() int {
	t := h.Under + h.Over + h.NaN
	for _, c := range h.Counts {
		t += c
	}
	return t
}

// Check is nil for a histogram that fits layout l and a run of layers
// layers, else the reason a writer refuses it and a reader treats it as
// damage: a layer out of range, a bin count other than l.Bins, a negative
// count, a mean or σ that is not finite (NaN, for "no finite entry", is
// allowed) or a negative σ.
func (h *Histogram) Check(l HistLayout, layers int) error {
	switch {
	case h.Layer < 0 || h.Layer >= layers:
		return fmt.Errorf("histogram of layer %d; the run has %d layers", h.Layer, layers)
	case len(h.Counts) != l.Bins:
		return fmt.Errorf("histogram has %d counts; the run's histograms have %d bins", len(h.Counts), l.Bins)
	case math.IsInf(h.Mean, 0) || math.IsInf(h.Std, 0):
		return fmt.Errorf("histogram mean %g or σ %g is infinite", h.Mean, h.Std)
	case h.Std < 0:
		return fmt.Errorf("histogram σ %g is negative", h.Std)
	case !countOK(h.Under) || !countOK(h.Over) || !countOK(h.NaN):
		return fmt.Errorf("histogram has a count that is negative or over 2^53 (under %d, over %d, nan %d)", h.Under, h.Over, h.NaN)
	}
	for k, c := range h.Counts {
		if !countOK(c) {
			return fmt.Errorf("histogram bin %d has count %d, negative or over 2^53", k, c)
		}
	}
	return nil
}

func countOK(c int) bool { return c >= 0 && c <= MaxHistCount }

// CheckHists is nil when a Frame's Hists fit its run: a layout l declared
// (nil: the run takes no histograms, and any is refused), each histogram
// fitting it (Histogram.Check), layers strictly ascending (one histogram
// per layer).
func CheckHists(hs []Histogram, l *HistLayout, layers int) error {
	if len(hs) == 0 {
		return nil
	}
	if l == nil {
		return fmt.Errorf("frame has %d histograms, but the run's header declares no histogram bins (RunMeta.Histogram)", len(hs))
	}
	for i := range hs {
		if err := hs[i].Check(*l, layers); err != nil {
			return err
		}
		if i > 0 && hs[i].Layer <= hs[i-1].Layer {
			return fmt.Errorf("histograms of layers %d then %d: want one per layer, ascending", hs[i-1].Layer, hs[i].Layer)
		}
	}
	return nil
}
