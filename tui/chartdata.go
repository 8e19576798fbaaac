package tui

import (
	"fmt"
	"math"

	"github.com/normtop/normtop/probes"
)

// xRange is the step window every step chart shows: the whole run so far,
// or the zoom (z/Z/n), which follows the run while it ends at the latest
// step.
func (m *common) xRange() (lo, hi int) {
	last := max(m.data.step, 1)
	if m.st.ZoomSpan <= 0 {
		return 1, last
	}
	end := m.st.ZoomEnd
	if end <= 0 || end > last {
		end = last
	}
	return max(end-m.st.ZoomSpan+1, 1), end
}

// buckets is a series' stored buckets (every one: min/max of each survive
// into the chart), smoothed and scaled as the screen asks (the scale as
// the last useLog decided). nil for nil.
func (m *common) buckets(h *history) []bucket {
	return m.scaled(rawBuckets(h), true)
}

// scaled smooths (when smooth and the level is on) and log-scales (when
// the chart is on a log axis) buckets in place and returns them.
func (m *common) scaled(bs []bucket, smooth bool) []bucket {
	if smooth {
		smoothBuckets(bs, smoothWeight(m.st.Smooth))
	}
	if m.lay.logShown {
		logBuckets(bs)
	}
	return bs
}

// faintRaw is the raw series kept faint behind a smoothed line (as
// TensorBoard does): its spikes stay visible while the line says where the
// series is going. Nothing when smoothing is off.
func (m *common) faintRaw(h *history, color int) []chartSeries {
	if smoothWeight(m.st.Smooth) == 0 || h == nil {
		return nil
	}
	return []chartSeries{{color: color, bs: m.scaled(rawBuckets(h), false), faint: true}}
}

// hidden reports whether variant i is toggled off the charts (v).
func (m *common) hidden(i int) bool { return i < 64 && m.st.Hidden&(1<<uint(i)) != 0 }

// stepSpec is the chart spec of a step chart of w×h over the zoom window
// whose first line is body line `line` (its mouse zone).
func (m *common) stepSpec(w, h, warmup, line int) chartSpec {
	lo, hi := m.xRange()
	return chartSpec{w: w, h: h, lo: lo, hi: hi, log: m.lay.logShown, warmup: warmup, cursor: m.cursorStep(), row: headerH + line}
}

// cursorStep is the cursor's step clamped into the window, -1 when off.
func (m *common) cursorStep() int {
	if m.st.Cursor < 0 {
		return -1
	}
	lo, hi := m.xRange()
	return clamp(m.st.Cursor, lo, hi)
}

// windowNote says what the charts show: the zoom and the cursor (with
// the selected variant's batch there).
func (m *common) windowNote() string {
	lo, hi := m.xRange()
	note := ""
	if m.st.ZoomSpan > 0 {
		note = fmt.Sprintf("steps %d–%d (0: all)", lo, hi)
	}
	if c := m.cursorStep(); c >= 0 {
		if note != "" {
			note += " · "
		}
		note += fmt.Sprintf("cursor %d", c)
		if bn := m.batchNote(c); bn != "" {
			note += " · " + bn
		}
	}
	return note
}

// readout is a series' value at the cursor, or its latest value with the
// cursor off, formatted for a legend ("–" when it has none there).
func (m *common) readout(bs []bucket) string {
	return probes.FormatValue(m.readoutVal(bs, false))
}

// readoutVal is the value readout shows, in data units (the log scale
// undone), NaN when the series has none there. hold (evaluations): past
// the series' last point its last value holds, the next evaluation not
// having happened yet. Legends of several series format these together
// (colFormat) so that they read alike.
func (m *common) readoutVal(bs []bucket, hold bool) float64 {
	if len(bs) == 0 {
		return math.NaN()
	}
	step := m.cursorStep()
	v := bs[len(bs)-1].Last
	if step >= 0 {
		if hold {
			step = min(step, bs[len(bs)-1].LastStep)
		}
		var ok bool
		if v, _, ok = valueAt(bs, step); !ok {
			return math.NaN()
		}
	}
	if m.lay.logShown {
		v = math.Pow(10, v)
	}
	return v
}

// chartWarmup is the widest warm-up window of probe p at layer l over the
// shown variants.
func (m *common) chartWarmup(l int, p probes.Probe, vs ...int) int {
	w := 0
	for _, i := range vs {
		if i >= 0 && i < len(m.data.variants) && !m.hidden(i) {
			w = max(w, m.data.variants[i].warmup(l, p))
		}
	}
	return w
}

// cellSteps is how many steps one column of a w-wide chart spans: the
// cursor's stride.
func (m *common) cellSteps(w int) int {
	lo, hi := m.xRange()
	return max((hi-lo+1)/max(w-9, 1), 1)
}

// valuesOf is the last value of each bucket, optionally EMA-smoothed
// (weight w, debiased, 0 = off) and log10-scaled (non-positive values
// become gaps): sparklines.
func valuesOf(bs []bucket, w float64, logScale bool) []float64 {
	out := make([]float64, len(bs))
	e := newEMA(w)
	for i, bk := range bs {
		v := bk.Last
		if w > 0 {
			v = e.add(v)
		}
		if logScale {
			v = log10OrNaN(v)
		}
		out[i] = v
	}
	return out
}
