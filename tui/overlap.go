package tui

import (
	"math"
	"sort"
	"strings"
)

// Lines that do not hide each other. Several variants on one axis can
// draw the same cells (batchnorm's loss exactly under pn-v's): the later
// line covers the earlier one, and a legend of four entries shows three
// lines. Two rules keep every variant findable: lines are drawn in rank
// order, the leader last (on top where lines cross), and a line that lies
// under a later one along the whole shown range gets a legend note "= X"
// naming the line that covers it.

// drawByRank orders the series so that the worst-ranked standing is drawn
// first and the leader last; a standing's train, val and band series keep
// their order among themselves. Faint context is left where it is (the
// callers draw it first).
func (m *common) drawByRank(series []chartSeries, st []standing) []chartSeries {
	order := rank(st, m.data.meta.Metric)
	pos := make(map[string]int, len(st)) // label → rank (0 leader)
	for r, j := range order {
		pos[seedLabel(st[j])] = r
	}
	at := func(c chartSeries) int {
		base := strings.TrimSuffix(strings.TrimSuffix(c.label, " val"), " raw")
		if r, ok := pos[base]; ok {
			return r
		}
		return len(st) // not a standing's (a zero line): drawn first
	}
	out := append([]chartSeries(nil), series...)
	sort.SliceStable(out, func(a, b int) bool { return at(out[a]) > at(out[b]) })
	return out
}

// coverDots is the vertical resolution the coincidence test assumes: a
// chart about 12 rows high, 4 braille dots a row.
const coverDots = 48

// coveredBy maps the label of each line drawn under a later line to the
// legend's note: "= X" when it lies within one braille dot of X at nearly
// every shown step (steps lo..hi, the y range fitted from yFrom), "mostly
// under X" at three quarters of them; X is the last line that covers it.
// Evaluation markers and faint context are not lines.
func coveredBy(series []chartSeries, lo, hi, yFrom int) map[string]string {
	ylo, yhi, ok := yRange(series, max(lo, yFrom), hi)
	if !ok {
		return nil
	}
	dot := (yhi - ylo) / coverDots
	if !(dot > 0) { // one flat value (a difference view of equal runs)
		dot = 1e-9 * math.Max(1, math.Abs(yhi))
	}
	var lines []chartSeries
	for _, s := range series {
		if !s.faint && !s.points && len(s.bs) > 0 {
			lines = append(lines, s)
		}
	}
	out := map[string]string{}
	for i := range lines {
		best := 0.0
		for j := i + 1; j < len(lines); j++ {
			f := sameCells(lines[i].bs, lines[j].bs, max(lo, yFrom), hi, dot)
			switch {
			case f >= 0.95 && f >= best:
				out[lines[i].label], best = "= "+lines[j].label, f
			case f >= 0.75 && f > best:
				out[lines[i].label], best = "mostly under "+lines[j].label, f
			}
		}
	}
	return out
}

// sameCells is the fraction of the steps both series have in lo..hi (at
// least 5 of them, else 0) at which they lie within dot of each other.
func sameCells(a, b []bucket, lo, hi int, dot float64) float64 {
	at := make(map[int]float64, len(b))
	for _, x := range b {
		if x.Count > 0 && x.LastStep >= lo && x.LastStep <= hi {
			at[x.LastStep] = x.Last
		}
	}
	n, near := 0, 0
	for _, x := range a {
		y, ok := at[x.LastStep]
		if x.Count == 0 || !ok || math.IsNaN(x.Last) || math.IsNaN(y) {
			continue
		}
		n++
		if math.Abs(x.Last-y) <= dot {
			near++
		}
	}
	if n < 5 {
		return 0
	}
	return float64(near) / float64(n)
}

// coverNote is the legend's note for a line another one covers.
func coverNote(covered map[string]string, label string) string {
	return covered[label]
}

// widestFirst orders raw min–max series (the Grid's) by the height they
// span over steps lo..hi, the widest first: a narrow series is drawn over a
// wide one and stays visible, and the wide one's spikes still stand out
// around it. (By rank, layernorm's shadow dist_mu would cover batchnorm's,
// the variant PowerNorm's Fig. 2 is about.)
func widestFirst(series []chartSeries, lo, hi int) []chartSeries {
	span := make(map[int]float64, len(series)) // index → span
	for k, s := range series {
		mn, mx := math.Inf(1), math.Inf(-1)
		for _, b := range s.bs {
			if b.Count == 0 || b.LastStep < lo || b.FirstStep > hi {
				continue
			}
			if !math.IsNaN(b.Min) && !math.IsInf(b.Min, 0) {
				mn = math.Min(mn, b.Min)
			}
			if !math.IsNaN(b.Max) && !math.IsInf(b.Max, 0) {
				mx = math.Max(mx, b.Max)
			}
		}
		if mx >= mn {
			span[k] = mx - mn
		}
	}
	idx := make([]int, len(series))
	for k := range idx {
		idx[k] = k
	}
	sort.SliceStable(idx, func(a, b int) bool { return span[idx[a]] > span[idx[b]] })
	out := make([]chartSeries, len(series))
	for k, i := range idx {
		out[k] = series[i]
	}
	return out
}
