package tui

import (
	"math"

	"github.com/normtop/normtop/probes"
)

// runSeries names a per-variant series that is not a layer probe.
type runSeries uint8

const (
	seriesTrainLoss runSeries = iota // Frame.TrainLoss at every step
	seriesValLoss                    // "val" Eval.Loss
	seriesValMetric                  // "val" Eval.Metric (accuracy or bpc)
	seriesGap                        // "val" Eval.Gap(): val loss − smoothed train loss
	seriesValTrain                   // "val" Eval.TrainLoss: the train loss as the table prints it (probes' Train)
	seriesEffRank                    // Spectrum.EffRank, at the spectrum's own step
	seriesRows                       // Frame.Batch.Rows, where the batch shape is recorded
	seriesWidth                      // Frame.Batch.Width
	seriesTokens                     // Frame.Batch.Tokens
	numRunSeries
)

var runSeriesNames = [numRunSeries]string{"train_loss", "val_loss", "val_metric", "gap", "val_train", "eff_rank", "batch_rows", "batch_width", "batch_tokens"}

func (s runSeries) String() string {
	if s < numRunSeries {
		return runSeriesNames[s]
	}
	return "series?"
}

// histories is the dashboard's store of bounded series, fed from Frames: one
// history per (variant, layer, probe) and one per (variant, runSeries). A
// series is created on its first finite value, so probes that never apply to
// a variant (g_psi2 for layernorm, ...) cost nothing. Memory is bounded by
// (number of series) × the history capacity, whatever the run's length.
//
// Like history, it is not safe for concurrent use: the UI goroutine owns it.
type histories struct {
	capacity int
	variants []variantHistories
}

type variantHistories struct {
	layers [][probes.NumProbes]*history
	run    [numRunSeries]*history
}

// newHistories returns an empty store whose series hold at most capacity
// buckets each (defaultHistoryCapacity when capacity ≤ 0).
func newHistories(capacity int) *histories {
	if capacity <= 0 {
		capacity = defaultHistoryCapacity
	}
	return &histories{capacity: capacity}
}

func (h *histories) variant(v int) *variantHistories {
	for len(h.variants) <= v {
		h.variants = append(h.variants, variantHistories{})
	}
	return &h.variants[v]
}

func (h *histories) add(slot **history, step int, x float64) {
	if math.IsNaN(x) {
		return
	}
	if *slot == nil {
		*slot = newHistory(h.capacity)
	}
	(*slot).Add(step, x)
}

// Add records every value f carries: the train loss, each measured probe of
// each layer, the "val" evaluations (loss, metric, gap), the spectrum's
// effective rank and the batch shape. A negative Variant is ignored.
func (h *histories) Add(f probes.Frame) {
	if f.Variant < 0 {
		return
	}
	vh := h.variant(f.Variant)
	h.add(&vh.run[seriesTrainLoss], f.Step, f.TrainLoss)
	for len(vh.layers) < len(f.Layers) {
		vh.layers = append(vh.layers, [probes.NumProbes]*history{})
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
		h.add(&vh.run[seriesValLoss], f.Step, e.Loss)
		h.add(&vh.run[seriesValMetric], f.Step, e.Metric)
		h.add(&vh.run[seriesGap], f.Step, e.Gap())
		h.add(&vh.run[seriesValTrain], f.Step, e.TrainLoss)
	}
	if f.Spectrum != nil {
		h.add(&vh.run[seriesEffRank], f.Spectrum.Step, f.Spectrum.EffRank)
	}
	if b := f.Batch; b.Known() {
		h.add(&vh.run[seriesRows], f.Step, float64(b.Rows))
		h.add(&vh.run[seriesWidth], f.Step, float64(b.Width))
		h.add(&vh.run[seriesTokens], f.Step, float64(b.Tokens))
	}
}

// Probe returns the history of probe p of layer for variant, or nil when no
// value was recorded.
func (h *histories) Probe(variant, layer int, p probes.Probe) *history {
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
func (h *histories) Run(variant int, s runSeries) *history {
	if variant < 0 || variant >= len(h.variants) || s >= numRunSeries {
		return nil
	}
	return h.variants[variant].run[s]
}

// Reset empties every series, keeping their allocations (e.g. on a replay
// seek backwards).
func (h *histories) Reset() {
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
func (h *histories) Series() (n int) {
	h.each(func(*history) { n++ })
	return n
}

// Bytes reports the memory held by the series (not counting the small index).
func (h *histories) Bytes() (b int) {
	h.each(func(s *history) { b += s.Bytes() })
	return b
}

func (h *histories) each(fn func(*history)) {
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
