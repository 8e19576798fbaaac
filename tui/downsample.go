package tui

import (
	"math"
)

// colSpan is what one chart column shows of a series: the extremes of every
// point in the column's steps and the latest of them. N == 0: no point.
type colSpan struct {
	Min, Max, Last float64
	LastStep       int
	N              int
}

// downsample folds buckets into n columns spanning steps [lo, hi]. Each
// bucket's Min and Max reach every column its step range overlaps and its
// Last lands in the column of its last step, so an extreme of any single
// step survives at any width: a one-step spike is never averaged or skipped
// away, which a divergence monitor cannot afford. out is reused when large
// enough. Cost O(len(bs) + n).
func downsample(bs []bucket, lo, hi, n int, out []colSpan) []colSpan {
	if cap(out) >= n {
		out = out[:n]
		clear(out)
	} else {
		out = make([]colSpan, n)
	}
	if n <= 0 || hi < lo {
		return out
	}
	span := hi - lo + 1
	col := func(s int) int { return int(int64(s-lo) * int64(n) / int64(span)) }
	for i := range bs {
		b := &bs[i]
		if b.Count == 0 || b.LastStep < lo || b.FirstStep > hi {
			continue
		}
		if math.IsNaN(b.Min) && math.IsNaN(b.Max) {
			continue
		}
		c0, c1 := col(max(b.FirstStep, lo)), col(min(b.LastStep, hi))
		for c := c0; c <= c1; c++ {
			o := &out[c]
			if o.N == 0 {
				o.Min, o.Max = b.Min, b.Max
			} else {
				o.Min, o.Max = nanMin(o.Min, b.Min), nanMax(o.Max, b.Max)
			}
			o.N += b.Count
		}
		if b.LastStep <= hi {
			out[c1].Last, out[c1].LastStep = b.Last, b.LastStep
		} else if out[c1].LastStep == 0 {
			// The bucket runs past the window: its latest value inside it is
			// unknown; hold the window's edge at the bucket's range middle.
			out[c1].Last, out[c1].LastStep = (b.Min+b.Max)/2, hi
		}
	}
	// Columns a bucket covered without ending in get a Last from their own
	// range, so lines can join column to column.
	for c := range out {
		if out[c].N > 0 && out[c].LastStep == 0 {
			out[c].Last = (out[c].Min + out[c].Max) / 2
		}
	}
	return out
}

// nanMin and nanMax ignore a NaN operand (a log axis turns values ≤ 0 into
// NaN).
func nanMin(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	if math.IsNaN(b) {
		return a
	}
	return math.Min(a, b)
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	if math.IsNaN(b) {
		return a
	}
	return math.Max(a, b)
}

func log10OrNaN(v float64) float64 {
	if v > 0 {
		return math.Log10(v)
	}
	return math.NaN()
}

// valueAt is the cursor readout of a series at step: the last value of the
// bucket holding step, or of the latest bucket before it while step is
// within the series (an eval series holds its last evaluation until the
// next). ok is false before the first point and after the last.
func valueAt(bs []bucket, step int) (v float64, at int, ok bool) {
	if len(bs) == 0 || step < bs[0].FirstStep || step > bs[len(bs)-1].LastStep {
		return 0, 0, false
	}
	// Buckets are in step order: binary search for the first with
	// LastStep ≥ step.
	lo, hi := 0, len(bs)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if bs[mid].LastStep < step {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	b := bs[lo]
	if b.FirstStep > step && lo > 0 {
		b = bs[lo-1] // step falls between two points: hold the earlier one
	}
	return b.Last, b.LastStep, true
}

// heldAt is a sparse series' value at step held from its newest point at
// or before it (an evaluation's value holds until the next), and that
// point's step; ok is false before the first point.
func heldAt(bs []bucket, step int) (v float64, at int, ok bool) {
	if len(bs) == 0 || step < bs[0].FirstStep {
		return 0, 0, false
	}
	return valueAt(bs, min(step, bs[len(bs)-1].LastStep))
}
