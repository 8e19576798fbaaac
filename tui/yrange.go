package tui

import (
	"math"
)

// The y range of the Overview's chart: fitted after the early transient.

// transientEnd is the first step the y range fits, so that the early
// transient (a loss falling from its initial value) does not squash the
// rest of the run into a few rows: the step by which every line has made
// 90% of its way from its first value in the window to its latest, when
// the lines after it span less than half of what they span with it, and
// at most half the window is left out. 0: nothing left out.
func transientEnd(series []chartSeries, lo, hi int) int {
	if hi-lo < 50 {
		return 0
	}
	from := lo
	for _, s := range series {
		if s.faint || s.points {
			continue
		}
		from = max(from, settledAt(s.bs, lo, hi))
	}
	from = min(from, lo+(hi-lo)/2)
	if from <= lo+(hi-lo)/50 {
		return 0
	}
	alo, ahi, ok := yRange(series, lo, hi)
	blo, bhi, ok2 := yRange(series, from, hi)
	if !ok || !ok2 || bhi-blo >= 0.5*(ahi-alo) {
		return 0
	}
	return from
}

// settledAt is the first step in [lo, hi] from which a series stays within
// 10% of its way from its first value there to its latest.
func settledAt(bs []bucket, lo, hi int) int {
	var in []bucket
	for _, b := range bs {
		if b.Count > 0 && b.LastStep >= lo && b.FirstStep <= hi && !math.IsNaN(b.Last) && !math.IsInf(b.Last, 0) {
			in = append(in, b)
		}
	}
	if len(in) < 2 {
		return lo
	}
	v0, v1 := in[0].Last, in[len(in)-1].Last
	tol := 0.1 * math.Abs(v0-v1)
	at := in[len(in)-1].FirstStep
	for i := len(in) - 1; i >= 0; i-- {
		if math.Abs(in[i].Last-v1) > tol {
			break
		}
		at = in[i].FirstStep
	}
	return at
}

// joinNotes joins the non-empty notes with " · ".
func joinNotes(notes ...string) string {
	out := ""
	for _, n := range notes {
		if n == "" {
			continue
		}
		if out != "" {
			out += " · "
		}
		out += n
	}
	return out
}
