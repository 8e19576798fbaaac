package tui

import "github.com/normtop/normtop/probes"

// zoomPresets are the "last N steps" windows n cycles through.
var zoomPresets = []int{100, 1000, 10000, 100000}

// zoomSpan is the span the zoom steps from: the window shown, or the
// whole run (last steps) when none is set or it is wider.
func zoomSpan(s State, last int) int {
	if s.ZoomSpan <= 0 || s.ZoomSpan > last {
		return last
	}
	return s.ZoomSpan
}

// zoomIn is z's (and the wheel's, up over a chart) chart window: half the
// span, around the cursor when it is on.
func zoomIn(s State, b Bounds) (span, end int) {
	last := max(b.Step, 1)
	span = max(zoomSpan(s, last)/2, 8)
	if s.Cursor < 0 {
		return span, s.ZoomEnd
	}
	end = min(s.Cursor+span/2, last)
	if end == last {
		end = 0
	}
	return span, end
}

// zoomOut is Z's (and the wheel's, down over a chart): double the span;
// the whole run once it covers it.
func zoomOut(s State, b Bounds) (span, end int) {
	last := max(b.Step, 1)
	span = zoomSpan(s, last) * 2
	if span >= last {
		return 0, 0
	}
	end = s.ZoomEnd
	if end > 0 {
		end = min(end+span/4, last)
		if end == last {
			end = 0
		}
	}
	return span, end
}

// zoomLast is n's: the next "last N steps" preset shorter than the span
// shown (the largest one), then the whole run.
func zoomLast(s State, b Bounds) (span, end int) {
	cur := zoomSpan(s, max(b.Step, 1))
	for i := len(zoomPresets) - 1; i >= 0; i-- {
		if p := zoomPresets[i]; p < cur {
			return p, 0
		}
	}
	return 0, 0
}

// nextProbe moves to the next (or previous) probe in list, or in probe
// order when the list is empty.
func nextProbe(p probes.Probe, fwd bool, list []probes.Probe) probes.Probe {
	if len(list) == 0 {
		if fwd {
			return (p + 1) % probes.NumProbes
		}
		return (p + probes.NumProbes - 1) % probes.NumProbes
	}
	idx := -1
	for i, q := range list {
		if q == p {
			idx = i
		}
	}
	switch {
	case idx < 0 && fwd:
		for _, q := range list {
			if q > p {
				return q
			}
		}
		return list[0]
	case idx < 0:
		for i := len(list) - 1; i >= 0; i-- {
			if list[i] < p {
				return list[i]
			}
		}
		return list[len(list)-1]
	case fwd:
		return list[(idx+1)%len(list)]
	}
	return list[(idx+len(list)-1)%len(list)]
}

// Replay speeds that + and - step through.
var speeds = []float64{0.25, 0.5, 1, 2, 4, 8, 16, 32, 64}

// stepSpeed moves to the next preset speed above (dir > 0) or below the
// current one, staying at the ends.
func stepSpeed(cur float64, dir int) float64 {
	if dir > 0 {
		for _, v := range speeds {
			if v > cur {
				return v
			}
		}
		return speeds[len(speeds)-1]
	}
	for i := len(speeds) - 1; i >= 0; i-- {
		if speeds[i] < cur {
			return speeds[i]
		}
	}
	return speeds[0]
}

func wrap(i, n int) int {
	if n <= 0 {
		return 0
	}
	return ((i % n) + n) % n
}

func clamp(v, lo, hi int) int {
	if hi < lo {
		return lo
	}
	return min(max(v, lo), hi)
}
