package tui

import (
	"math"

	"github.com/normtop/normtop/probes"
)

// RunSeries names a per-variant series that is not a layer probe.
type RunSeries uint8

const (
	SeriesTrainLoss RunSeries = iota // Frame.TrainLoss at every step
	SeriesValLoss                    // "val" Eval.Loss
	SeriesValMetric                  // "val" Eval.Metric (accuracy or bpc)
	SeriesGap                        // "val" Eval.Gap(): val loss − smoothed train loss
	SeriesEffRank                    // Spectrum.EffRank, at the spectrum's own step
	NumRunSeries
)

var runSeriesNames = [NumRunSeries]string{"train_loss", "val_loss", "val_metric", "gap", "eff_rank"}

func (s RunSeries) String() string {
	if s < NumRunSeries {
		return runSeriesNames[s]
	}
	return "series?"
}

// Histories is the dashboard's store of bounded series, fed from Frames: one
// History per (variant, layer, probe) and one per (variant, RunSeries). A
// series is created on its first finite value, so probes that never apply to
// a variant (g_psi2 for layernorm, ...) cost nothing. Memory is bounded by
// (number of series) × the History capacity, whatever the run's length.
//
// Like History, it is not safe for concurrent use: the UI goroutine owns it.
type Histories struct {
	capacity int
	variants []variantHistories
}

type variantHistories struct {
	layers [][probes.NumProbes]*History
	run    [NumRunSeries]*History
}

// NewHistories returns an empty store whose series hold at most capacity
// buckets each (DefaultHistoryCapacity when capacity ≤ 0).
func NewHistories(capacity int) *Histories {
	if capacity <= 0 {
		capacity = DefaultHistoryCapacity
	}
	return &Histories{capacity: capacity}
}

func (h *Histories) variant(v int) *variantHistories {
	for len(h.variants) <= v {
		h.variants = append(h.variants, variantHistories{})
	}
	return &h.variants[v]
}

func (h *Histories) add(slot **History, step int, x float64) {
	if math.IsNaN(x) {
		return
	}
	if *slot == nil {
		*slot = NewHistory(h.capacity)
	}
	(*slot).Add(step, x)
}

// Add records every value f carries: the train loss, each measured probe of
// each layer, the "val" evaluations (loss, metric, gap) and the spectrum's
// effective rank. A negative Variant is ignored.
func (h *Histories) Add(f probes.Frame) {
	if f.Variant < 0 {
		return
	}
	vh := h.variant(f.Variant)
	h.add(&vh.run[SeriesTrainLoss], f.Step, f.TrainLoss)
	for len(vh.layers) < len(f.Layers) {
		vh.layers = append(vh.layers, [probes.NumProbes]*History{})
	}
	for i := range f.Layers {
		for p, x := range f.Layers[i] {
			h.add(&vh.layers[i][p], f.Step, x)
		}
	}
	for _, e := range f.Eval {
		if probes.Split(e.Split) != probes.SplitVal {
			continue
		}
		h.add(&vh.run[SeriesValLoss], f.Step, e.Loss)
		h.add(&vh.run[SeriesValMetric], f.Step, e.Metric)
		h.add(&vh.run[SeriesGap], f.Step, e.Gap())
	}
	if f.Spectrum != nil {
		h.add(&vh.run[SeriesEffRank], f.Spectrum.Step, f.Spectrum.EffRank)
	}
}

// Probe returns the history of probe p of layer for variant, or nil when no
// value was recorded.
func (h *Histories) Probe(variant, layer int, p probes.Probe) *History {
	if variant < 0 || variant >= len(h.variants) || p >= probes.NumProbes {
		return nil
	}
	vh := &h.variants[variant]
	if layer < 0 || layer >= len(vh.layers) {
		return nil
	}
	return vh.layers[layer][p]
}

// Run returns the run-level series s of variant, or nil when no value was
// recorded.
func (h *Histories) Run(variant int, s RunSeries) *History {
	if variant < 0 || variant >= len(h.variants) || s >= NumRunSeries {
		return nil
	}
	return h.variants[variant].run[s]
}

// Reset empties every series, keeping their allocations (e.g. on a replay
// seek backwards).
func (h *Histories) Reset() {
	for v := range h.variants {
		vh := &h.variants[v]
		for _, r := range vh.run {
			if r != nil {
				r.Reset()
			}
		}
		for i := range vh.layers {
			for _, s := range vh.layers[i] {
				if s != nil {
					s.Reset()
				}
			}
		}
	}
}

// Series returns how many series have been created.
func (h *Histories) Series() (n int) {
	h.each(func(*History) { n++ })
	return n
}

// Bytes reports the memory held by the series (not counting the small index).
func (h *Histories) Bytes() (b int) {
	h.each(func(s *History) { b += s.Bytes() })
	return b
}

func (h *Histories) each(fn func(*History)) {
	for v := range h.variants {
		vh := &h.variants[v]
		for _, r := range vh.run {
			if r != nil {
				fn(r)
			}
		}
		for i := range vh.layers {
			for _, s := range vh.layers[i] {
				if s != nil {
					fn(s)
				}
			}
		}
	}
}
