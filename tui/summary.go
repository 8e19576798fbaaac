package tui

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/normtop/normtop/probes"
)

// summaryCols are the Summary table's columns; o sorts by the next one.
var summaryCols = []string{"rank", "variant", "final", "best", "test", "val loss", "train", "gap", "steps/s", "alerts", "status"}

// summary: the ranked result of the run, the screen a finished run lands
// on. One row per variant (per spec with several seeds: mean±sd over them),
// best marked, sortable by any column.
func (m *common) summary(w, h int) []string {
	s := m.styles
	st := m.data.standings()
	if len(st) == 0 {
		return []string{"no variants in this run"}
	}
	metric := m.data.meta.MetricKind()
	order := rank(st, string(metric))
	rankOf := make([]int, len(st))
	for r, j := range order {
		rankOf[j] = r + 1
	}
	gnames, _ := layerGroups(m.data.meta.Layers)
	seeds := false
	for _, x := range st {
		seeds = seeds || len(x.idx) > 1
	}
	mw := 8 // the final metric's column fits its widest cell (mean ± sd over seeds)
	for _, x := range st {
		mw = max(mw, len([]rune(metric.FormatMeanSD(x.Metric))))
	}
	// Names and statuses are as wide as the longest; the numbers give way
	// on a narrow screen, the least telling first (speed, gap, test ...).
	nameW, statusW := 8, 6
	for _, x := range st {
		nameW = max(nameW, len([]rune(x.label))+2+3*min(len(x.idx)-1, 1)+1)
		statusW = max(statusW, len(m.statusText(&x)))
	}
	cols := []column{
		{head: "#", w: 2, right: true},
		{head: "variant", w: min(nameW, max(16, w/4))},
		{head: "final " + metric.Short(), w: mw, right: true},
		{head: "best", w: 8, right: true, drop: 5},
		{head: "test", w: 8, right: true, drop: 7},
		{head: "val loss", w: 8, right: true, drop: 4},
		{head: "train", w: 8, right: true, drop: 2},
		{head: "gap", w: 8, right: true, drop: 8},
		{head: "steps/s", w: 7, right: true, drop: 9},
		{head: "alerts " + strings.Join(gnames, "/"), w: max(8, 7+4*len(gnames)), drop: 6},
		{head: "status", w: statusW, drop: 3},
	}
	sorted := m.summaryOrder(st, rankOf)
	keep := fitColumns(cols, w)
	heads := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = c.head
		if i == m.st.SortCol {
			arrow := "▲"
			if m.st.SortRev {
				arrow = "▼"
			}
			heads[i] = c.head + arrow
		}
	}
	// The title says the order the rows are in: the rank, or the column
	// o sorted them by (★ stays the rank's best).
	by := fmt.Sprintf("ranked by final val %s (then val loss)", metric.Short())
	if m.st.SortCol > 0 && m.st.SortCol < len(cols) {
		by = "sorted by " + cols[m.st.SortCol].head
	}
	if m.st.SortRev {
		by += ", reversed"
	}
	title := s.Heading.Render("summary") + s.Dim.Render(fmt.Sprintf(" · %d variants, %s · ★ best", len(st), by))
	out := []string{withHint(title, s.Dim.Render("o: sort · O: reverse"), w), ""}
	x := 0
	for _, i := range keep {
		m.zones = append(m.zones, zone{kind: zoneSort, x0: x, x1: x + cols[i].w, y0: headerH + len(out), y1: headerH + len(out) + 1, val: i})
		x += cols[i].w + 1
	}
	out = append(out, s.Heading.Render(tableLine(cols, keep, heads)))
	fv := make([]float64, 0, 3*len(st))
	for _, x := range st {
		fv = append(fv, x.val, x.train, x.gap)
	}
	num := colFormat(fv)
	rows := max(h-len(out)-3, 1)
	first := 0
	last := min(len(sorted), first+rows)
	for _, j := range sorted[first:last] {
		x := &st[j]
		i := x.idx[0]
		name := x.label
		if len(x.idx) > 1 {
			name += fmt.Sprintf(" ×%d", len(x.idx))
		}
		if rankOf[j] == 1 && x.haveVal {
			name = "★ " + name
		} else {
			name = "  " + name
		}
		final, best, val, gap := probes.Missing, probes.Missing, probes.Missing, probes.Missing
		if x.haveVal {
			final = metric.FormatMeanSD(x.Metric)
			best, val, gap = metric.Format(x.best), num(x.val), num(x.gap)
		}
		al := make([]string, len(x.alerts))
		for g, n := range x.alerts {
			al[g] = fmt.Sprint(n)
		}
		test := metric.Format(x.test)
		cells := []string{fmt.Sprint(rankOf[j]), name, final, best, test, val, num(x.train), gap,
			fmt3(x.stepsPerSec), strings.Join(al, "/"), m.statusText(x)}
		line := tableLine(cols, keep, cells)
		switch {
		case x.status == probes.Diverged:
			line = s.Bad.Render(line)
		case rankOf[j] == 1 && x.haveVal:
			line = s.seriesStyle(i).Bold(true).Render(line)
		default:
			line = s.seriesStyle(i).Render(line)
		}
		m.zones = append(m.zones, zone{kind: zoneVariant, x0: 0, x1: w, y0: headerH + len(out), y1: headerH + len(out) + 1, val: i})
		out = append(out, line)
	}
	if hint := pageHint("variants", first, last, len(sorted), "o"); hint != "" {
		out = append(out, s.Dim.Render(hint))
	}
	out = append(out, "")
	if len(m.findings) > 0 {
		out = append(out, s.Heading.Render("findings")+s.Dim.Render(" · normtop report on this run (details: normtop report FILE)"))
		for _, f := range m.findings {
			out = append(out, wrapWords(f, w)...)
		}
		out = append(out, "")
	}
	notes := []string{columnNotes(cols, keep)}
	if seeds {
		notes = append(notes, "×n: n seeds of one spec, mean±sd (sd over seeds).")
	}
	if !m.finished() {
		notes = append(notes, "the run is still going: these are the latest values.")
	}
	for _, n := range notes {
		out = append(out, wrapWords(s.Dim.Render(n), w)...)
	}
	return out
}

// summaryNotes explain the Summary's columns, by heading prefix.
var summaryNotes = []struct{ head, note string }{
	{"final", "final = the last val evaluation"},
	{"best", "best = the best over the run"},
	{"test", "test = the test split at the end"},
	{"gap", "gap = val loss − train loss since the previous eval"},
	{"alerts", "alerts = outlier alerts per layer group"},
}

// columnNotes is the footnote for the columns shown (a column the width
// dropped is not explained).
func columnNotes(cols []column, keep []int) string {
	var parts []string
	for _, n := range summaryNotes {
		for _, i := range keep {
			if strings.HasPrefix(cols[i].head, n.head) {
				parts = append(parts, n.note)
				break
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}

// summaryOrder sorts the standings by the chosen column (rank by default).
func (m *common) summaryOrder(st []standing, rankOf []int) []int {
	idx := make([]int, len(st))
	for i := range idx {
		idx[i] = i
	}
	sign := 1.0 // lower is better: bpc
	if m.data.meta.MetricKind().HigherIsBetter() {
		sign = -1
	}
	key := func(j int) float64 {
		x := &st[j]
		switch m.st.SortCol {
		case 2:
			return sign * orNaN(x.metric, x.haveVal)
		case 3:
			return sign * orNaN(x.best, x.haveVal)
		case 4:
			return sign * x.test
		case 5:
			return orNaN(x.val, x.haveVal)
		case 6:
			return x.train
		case 7:
			return orNaN(x.gap, x.haveVal)
		case 8:
			return -x.stepsPerSec
		case 9:
			n := 0
			for _, a := range x.alerts {
				n += a
			}
			return float64(n)
		case 10:
			return float64(x.status)
		}
		return float64(rankOf[j])
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if m.st.SortCol == 1 {
			return st[idx[a]].label < st[idx[b]].label != m.st.SortRev
		}
		ka, kb := key(idx[a]), key(idx[b])
		if math.IsNaN(ka) || math.IsNaN(kb) {
			return !math.IsNaN(ka) && math.IsNaN(kb)
		}
		if m.st.SortRev {
			return ka > kb
		}
		return ka < kb
	})
	return idx
}

func orNaN(v float64, ok bool) float64 {
	if !ok {
		return math.NaN()
	}
	return v
}

// FindingsMsg carries the papers' findings as `normtop report` judges this
// run, one line each; the Summary screen lists them. The command that runs
// the dashboard computes them (file I/O stays out of the model) once the run
// file is complete, and sends them with tea.Program.Send.
type FindingsMsg struct{ Lines []string }

// finished reports whether the run has ended: the live feed closed, or the
// replayed file's end record was read, or every variant stopped.
func (m *common) finished() bool {
	return m.feed.Ended() || m.data.allStopped()
}
