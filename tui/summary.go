package tui

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// summaryState is the Summary screen's own state: the order of its rows.
type summaryState struct {
	sortCol int  // the column the rows are sorted by (o, a click on its heading); 0 = rank
	sortRev bool // the order reversed (O, a second click)
}

// sortBy is a click on column c's heading: sort by it, or reverse.
func (s *summaryState) sortBy(c int) {
	if s.sortCol == c {
		s.sortRev = !s.sortRev
	} else {
		s.sortCol, s.sortRev = c, false
	}
}

// summaryKeys is the Summary screen's key map: o sorts by the next column
// (of ncols), O reverses.
var summaryKeys = keyTable[summaryState, int]{
	{key: bind([]string{"o", "O"}, "o/O", "sort/reverse"), do: func(s *summaryState, ncols int, k keyName) tea.Cmd {
		if k == "O" {
			s.sortRev = !s.sortRev
		} else {
			s.sortCol = wrap(s.sortCol+1, max(ncols, 1))
		}
		return nil
	}},
}

// summaryCols are the Summary table's columns; o sorts by the next one.
var summaryCols = []string{"rank", "variant", "final", "best", "test", "val loss", "train", "gap", "steps/s", "alerts", "status"}

// summaryScreen: the ranked result of the run, the screen a finished run lands
// on. One row per variant (per spec with several seeds: mean±sd over them),
// best marked, sortable by any column.
type summaryScreen struct {
	page
	state    summaryState
	findings []string // `normtop report`'s findings verdicts, one line each (FindingsMsg)
}

func (m *summaryScreen) View() []string { return m.summary(m.w, m.h) }

// Update takes the screen's keys and the findings `normtop report` judged.
func (m *summaryScreen) Update(msg tea.Msg) (tea.Cmd, bool) {
	if k, ok := keyMsg(msg); ok {
		return summaryKeys.handle(&m.state, len(summaryCols), k, m.st.Replay)
	}
	f, ok := msg.(FindingsMsg)
	if ok {
		m.findings = f.Lines
	}
	return nil, ok
}

// sortBy: a click on a column's heading.
func (m *summaryScreen) sortBy(c int) { m.state.sortBy(c) }

func (m *summaryScreen) ShortHelp(replay bool) []key.Binding { return summaryKeys.help(replay) }

func (m *summaryScreen) Guide() string {
	return "Summary: the variants ranked by their final validation metric (then val loss, then train loss); ★ marks " +
		"the best. Runs of one spec with several seeds are grouped as mean±sd. o sorts by the next column, " +
		"O reverses. alerts counts outlier alerts per layer group. A run that ends while the Overview is shown lands here."
}

func (m *summaryScreen) summary(w, h int) []string {
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
	cols := m.summaryColumns(st, w)
	sorted := m.summaryOrder(st, rankOf)
	keep := fitColumns(cols, w)
	out := m.summaryHead(len(st), cols, keep, w)
	rows := max(h-len(out)-3, 1)
	first := 0
	last := min(len(sorted), first+rows)
	for _, j := range sorted[first:last] {
		x := &st[j]
		m.lay.zones = append(m.lay.zones, zone{kind: zoneVariant, x0: 0, x1: w, y0: headerH + len(out), y1: headerH + len(out) + 1, val: x.Variants[0]})
		out = append(out, m.summaryRow(x, rankOf[j], cols, keep))
	}
	if hint := pageHint("variants", first, last, len(sorted), "o"); hint != "" {
		out = append(out, m.styles.Dim.Render(hint))
	}
	seeds := false
	for _, x := range st {
		seeds = seeds || len(x.Variants) > 1
	}
	return append(out, m.summaryFooter(cols, keep, seeds, w)...)
}

// summaryColumns are the Summary table's columns at width w. Names and
// statuses are as wide as the longest; the numbers give way on a narrow
// screen, the least telling first (speed, gap, test ...).
func (m *summaryScreen) summaryColumns(st []standing, w int) []column {
	metric := m.data.meta.MetricKind()
	gnames, _ := layerGroups(m.data.meta.Layers)
	mw := 8 // the final metric's column fits its widest cell (mean ± sd over seeds)
	for _, x := range st {
		mw = max(mw, len([]rune(metric.FormatMeanSD(x.Metric))))
	}
	nameW, statusW := 8, 6
	for _, x := range st {
		nameW = max(nameW, len([]rune(x.Key))+2+3*min(len(x.Variants)-1, 1)+1)
		statusW = max(statusW, len(m.statusText(&x)))
	}
	return []column{
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
}

// summaryHead is the title (the order the rows are in), a blank line and
// the column heads, each a mouse zone that sorts by it.
func (m *summaryScreen) summaryHead(n int, cols []column, keep []int, w int) []string {
	s := m.styles
	heads := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = c.head
		if i == m.state.sortCol {
			arrow := "▲"
			if m.state.sortRev {
				arrow = "▼"
			}
			heads[i] = c.head + arrow
		}
	}
	// The title says the order the rows are in: the rank, or the column
	// o sorted them by (★ stays the rank's best).
	by := fmt.Sprintf("ranked by final val %s (then val loss)", m.data.meta.MetricKind().Short())
	if m.state.sortCol > 0 && m.state.sortCol < len(cols) {
		by = "sorted by " + cols[m.state.sortCol].head
	}
	if m.state.sortRev {
		by += ", reversed"
	}
	title := s.Heading.Render("summary") + s.Dim.Render(fmt.Sprintf(" · %d variants, %s · ★ best", n, by))
	out := []string{withHint(title, s.Dim.Render("o: sort · O: reverse"), w), ""}
	x := 0
	for _, i := range keep {
		m.lay.zones = append(m.lay.zones, zone{kind: zoneSort, x0: x, x1: x + cols[i].w, y0: headerH + len(out), y1: headerH + len(out) + 1, val: i})
		x += cols[i].w + 1
	}
	return append(out, s.Heading.Render(tableLine(cols, keep, heads)))
}

// summaryRow is standing x's row, ranked rank, in its variant's colour
// (bold for the best, red when diverged).
func (m *summaryScreen) summaryRow(x *standing, rank int, cols []column, keep []int) string {
	s := m.styles
	metric := m.data.meta.MetricKind()
	i := x.Variants[0]
	name := x.Key
	if len(x.Variants) > 1 {
		name += fmt.Sprintf(" ×%d", len(x.Variants))
	}
	if rank == 1 && x.HaveVal {
		name = "★ " + name
	} else {
		name = "  " + name
	}
	final, best, val, gap := probes.Missing, probes.Missing, probes.Missing, probes.Missing
	if x.HaveVal {
		final = metric.FormatMeanSD(x.Metric)
		best, val, gap = metric.Format(x.Best.Mean), probes.FormatLoss(x.ValLoss.Mean), probes.FormatLoss(x.Gap.Mean)
	}
	al := make([]string, len(x.alerts))
	for g, n := range x.alerts {
		al[g] = fmt.Sprint(n)
	}
	test := metric.Format(x.Test.Mean)
	cells := []string{fmt.Sprint(rank), name, final, best, test, val, probes.FormatLoss(x.TrainLoss.Mean), gap,
		probes.FormatValue(x.StepsPerSec.Mean), strings.Join(al, "/"), m.statusText(x)}
	line := tableLine(cols, keep, cells)
	switch {
	case x.Status == probes.Diverged:
		return s.Bad.Render(line)
	case rank == 1 && x.HaveVal:
		return s.seriesStyle(i).Bold(true).Render(line)
	}
	return s.seriesStyle(i).Render(line)
}

// summaryFooter is the notes on the columns shown, the seeds and a run
// still going, right under the table they explain, then the findings
// `normtop report` judged (which a short terminal cuts, not the notes).
func (m *summaryScreen) summaryFooter(cols []column, keep []int, seeds bool, w int) []string {
	s := m.styles
	out := []string{""}
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
	if len(m.findings) > 0 {
		out = append(out, "", s.Heading.Render("findings")+s.Dim.Render(" · normtop report on this run (details: normtop report FILE)"))
		for _, f := range m.findings {
			out = append(out, wrapWords(f, w)...)
		}
	}
	return out
}

// summaryNotes explain the Summary's columns, by heading prefix.
var summaryNotes = []struct{ head, note string }{
	{"final", "final = the last val evaluation"},
	{"best", "best = the best over the run"},
	{"test", "test = the test split at the end"},
	{"train", "train = mean train loss of the steps up to the last val eval since the one before"},
	{"gap", "gap = val loss − train"},
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
func (m *summaryScreen) summaryOrder(st []standing, rankOf []int) []int {
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
		switch m.state.sortCol {
		case 2:
			return sign * orNaN(x.Metric.Mean, x.HaveVal)
		case 3:
			return sign * orNaN(x.Best.Mean, x.HaveVal)
		case 4:
			return sign * x.Test.Mean
		case 5:
			return orNaN(x.ValLoss.Mean, x.HaveVal)
		case 6:
			return x.TrainLoss.Mean
		case 7:
			return orNaN(x.Gap.Mean, x.HaveVal)
		case 8:
			return -x.StepsPerSec.Mean
		case 9:
			n := 0
			for _, a := range x.alerts {
				n += a
			}
			return float64(n)
		case 10:
			return float64(x.Status)
		}
		return float64(rankOf[j])
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if m.state.sortCol == 1 {
			return st[idx[a]].Key < st[idx[b]].Key != m.state.sortRev
		}
		ka, kb := key(idx[a]), key(idx[b])
		if math.IsNaN(ka) || math.IsNaN(kb) {
			return !math.IsNaN(ka) && math.IsNaN(kb)
		}
		if m.state.sortRev {
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
func (m *summaryScreen) finished() bool {
	return m.feed.Ended() || m.data.allStopped()
}
