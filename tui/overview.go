package tui

import (
	"fmt"
	"math"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// overviewScreen: who is winning. One chart overlays every variant's train
// loss (smoothed lines, the raw series faint behind) and val loss (markers,
// never smoothed) on one y axis, or with d their difference to a baseline
// variant; below it the variants are ranked by their latest val metric.
// It owns the difference view's state and keys (overviewKeys).
type overviewScreen struct {
	page
	state     overviewState
	standings int // the lines ranked when laid out last (b cycles over them)
}

func (m *overviewScreen) View() []string { return m.overview(m.w, m.h) }

// Update takes the screen's keys (d and b).
func (m *overviewScreen) Update(msg tea.Msg) (tea.Cmd, bool) {
	if k, ok := keyMsg(msg); ok {
		return overviewKeys.handle(&m.state, m.standings, k, m.st.Replay)
	}
	return nil, false
}

func (m *overviewScreen) ShortHelp(replay bool) []key.Binding { return overviewKeys.help(replay) }

// overviewState is the Overview's own state: the difference view (d) and
// its baseline, a standing's index (b cycles it).
type overviewState struct {
	diff     bool
	baseline int
}

// overviewKeys is the Overview's key map over its state, given how many
// lines it ranks: d toggles the difference view (from any screen: the root
// shows the Overview first), b cycles the baseline; the others are the
// root's, listed here in the help bar's order.
var overviewKeys = keyTable[overviewState, int]{
	{key: keymap.diff, do: func(s *overviewState, _ int, _ keyName) tea.Cmd {
		s.diff = !s.diff
		return nil
	}},
	{key: keymap.base, do: func(s *overviewState, standings int, _ keyName) tea.Cmd {
		s.baseline = wrap(s.baseline+1, standings)
		return nil
	}},
	{key: keymap.smooth},
	{key: keymap.cursor},
	{key: keymap.zoom},
	{key: keymap.toggle},
	{key: keymap.variant},
}

func (m *overviewScreen) Guide() string {
	return "Overview: every variant's train loss, smoothed (TensorBoard's debiased EMA; s steps the strength, the raw " +
		"series faint behind), and val loss (• markers, never smoothed) on one axis fitted after the early transient; " +
		"below, the variants ranked by their latest val metric (with ≥ 3 seeds a side, gaps to the leader beyond or " +
		"within seed noise, 2·SE). d: each variant's loss minus a baseline's (b picks it) at the same step, < 0 is " +
		"better. c puts a cursor on the chart (←/→ move it, or click): the legend reads every variant at the newest val " +
		"evaluation at or before it, by the table's definitions (train • val loss). " +
		"z/Z zoom in and out (or the wheel), n shows the last N steps, 0 all; v hides the selected variant. In the ranking, " +
		"train = the mean train loss of the steps up to the newest val eval since the one before (the " +
		"smoothed line is for reading the curve), gap = val loss − train, so a row subtracts; the line below the " +
		"heading says so when the variants' newest vals are of different steps. Xu et al.: LayerNorm's bias and gain raise the risk of " +
		"over-fitting (LayerNorm-simple often generalises better); AdaNorm aims to fix it."
}

func (m *overviewScreen) overview(w, h int) []string {
	nv := len(m.data.variants)
	if nv == 0 {
		return []string{"no variants in this run"}
	}
	st := m.data.standings()
	m.standings = len(st)
	order := rank(st, m.data.meta.Metric)
	// The chart gets two thirds of the height; the ranking pages beyond.
	tableRows := min(len(st), max(3, (h-4)/3))
	if valStepsNote(st, order) != "" {
		tableRows++ // the line that says at which steps the vals were taken
	}
	var c lossChart
	if m.state.diff {
		c = m.diffChart(st)
	} else {
		c = m.lossChart(st)
	}
	lo, hi := m.xRange()
	yFrom := transientEnd(c.series, lo, hi)
	note := m.windowNote()
	if yFrom > 0 {
		note = joinNotes(fmt.Sprintf("y fits steps ≥ %d", yFrom), note)
	}
	out := []string{withNote(c.title, m.styles.Dim.Render(note), w)}
	legendLines := joinLegend(c.legend, w, 2+min(m.st.Cursor+1, 1))
	chartH := h - len(out) - len(legendLines) - tableRows - 1
	if chartH >= 5 {
		spec := m.stepSpec(w, chartH, 0, len(out))
		spec.yFrom = yFrom
		out = append(out, m.drawChart(c.series, spec)...)
	}
	out = append(out, legendLines...)
	return append(out, m.rankTable(st, order, w, h-len(out), len(out))...)
}

// lossChart is what the Overview's chart draws: a title, the series (faint
// context first) and the legend entries.
type lossChart struct {
	title  string
	series []chartSeries
	legend []string
}

// lossChart: train and val loss of every standing on one axis. One line per
// standing: a variant, or the seeds of one spec as their mean (a run of 4
// variants × 3 seeds draws 4 lines, not 12).
func (m *overviewScreen) lossChart(st []standing) lossChart {
	s := m.styles
	var raw [][]bucket
	for _, x := range st {
		if m.hidden(x.Variants[0]) {
			continue
		}
		// The scale follows the lines drawn (smoothed), not single
		// batches: an MNIST batch's loss near 0 would make every loss
		// chart logarithmic.
		for _, j := range x.Variants {
			v := &m.data.variants[j]
			tr := v.smoothedTrain(m.st.Smooth)
			if tr == nil {
				tr = v.series(seriesTrainLoss)
			}
			raw = append(raw, rawBuckets(tr), rawBuckets(v.series(seriesValLoss)))
		}
	}
	m.useLog(raw...)
	scale := "loss"
	if m.lay.logShown {
		scale = "loss (log axis)"
	}
	line := "train ─"
	if n := smoothNote(m.st.Smooth); n != "" {
		line = "train ─ (" + n + ", raw faint)"
	}
	val := "val •"
	if s.NoColor {
		val = "val points (the legend's number)"
	}
	c := lossChart{title: s.Heading.Render(scale) + s.Dim.Render(" · "+line+" and "+val+" of every variant on one axis")}
	var faint, lines []chartSeries
	for _, x := range st {
		i := x.Variants[0]
		if m.hidden(i) {
			continue
		}
		var trs, raws, vas [][]bucket
		for _, j := range x.Variants {
			v := &m.data.variants[j]
			rawTr := m.scaled(rawBuckets(v.series(seriesTrainLoss)), false)
			raws = append(raws, rawTr)
			if sm := v.smoothedTrain(m.st.Smooth); sm != nil {
				trs = append(trs, m.scaled(rawBuckets(sm), false))
			} else {
				trs = append(trs, rawTr)
			}
			vas = append(vas, m.scaled(rawBuckets(v.series(seriesValLoss)), false))
		}
		tr, va := meanBuckets(trs), meanBuckets(vas)
		label := seedLabel(x)
		if smoothWeight(m.st.Smooth) > 0 {
			faint = append(faint, chartSeries{label: label + " raw", color: i, bs: meanBuckets(raws), faint: true})
		}
		lines = append(lines,
			chartSeries{label: label, color: i, glyph: m.glyph(i), bs: tr},
			chartSeries{label: label + " val", color: i, glyph: m.valGlyph(i), bs: va, points: true})
	}
	// The leader is drawn last; a line another covers says so.
	lines = m.drawByRank(lines, st)
	lo, hi := m.xRange()
	covered := coveredBy(lines, lo, hi, transientEnd(lines, lo, hi))
	evalStep := -1
	for _, x := range st {
		i := x.Variants[0]
		if m.hidden(i) {
			c.legend = append(c.legend, s.Dim.Render("("+seedLabel(x)+" hidden: v)"))
			continue
		}
		// The table below has every variant's latest values: the legend
		// reads them only at the cursor, by the table's definitions (the
		// val evaluation at or before the cursor, and the train loss its
		// gap was taken against), so that at the last step the two print
		// the same numbers.
		value := ""
		if m.st.Cursor >= 0 {
			tr, va, at := m.evalAtCursor(x)
			value = probes.FormatLoss(tr) + " • " + probes.FormatLoss(va)
			evalStep = max(evalStep, at)
		}
		if n := coverNote(covered, seedLabel(x)); n != "" {
			value = joinNotes(value, n)
		}
		mark := "─"
		if g := m.valGlyph(i); g != "" {
			mark = m.glyph(i) + g // without colour: the line's glyph, then its val points' number
		}
		c.legend = append(c.legend, m.legendEntry(i, seedLabel(x), mark, value))
	}
	if evalStep > 0 {
		// Names what the numbers are: the smoothed line under the cursor
		// is for reading the curve; the numbers are the table's.
		c.legend = append([]string{s.Dim.Render(fmt.Sprintf("at val step %d, train = mean since the val before:", evalStep))}, c.legend...)
	}
	c.series = append(faint, lines...)
	return c
}

// evalAtCursor is standing x's val loss at the newest val evaluation at or
// before the cursor, the train loss that evaluation's gap was taken
// against (probes' Train, the table's "train") and the evaluation's step:
// the mean over the standing's seeds; NaN and -1 before any evaluation.
func (m *overviewScreen) evalAtCursor(x standing) (train, val float64, at int) {
	var trs, vas [][]bucket
	for _, j := range x.Variants {
		v := &m.data.variants[j]
		trs = append(trs, rawBuckets(v.series(seriesValTrain)))
		vas = append(vas, rawBuckets(v.series(seriesValLoss)))
	}
	step := m.cursorStep()
	train, _, okT := heldAt(meanBuckets(trs), step)
	val, at, okV := heldAt(meanBuckets(vas), step)
	if !okT {
		train = math.NaN()
	}
	if !okV {
		val, at = math.NaN(), -1
	}
	return train, val, at
}

// seedLabel names a standing on a chart: its label, with "×n" for the mean
// of n seeds.
func seedLabel(x standing) string {
	if len(x.Variants) > 1 {
		return fmt.Sprintf("%s ×%d (mean)", x.Key, len(x.Variants))
	}
	return x.Key
}

// meanBuckets is the seeds' mean series: bucket k holds the mean of the
// seeds' bucket k (last value, minimum and maximum alike), over the steps
// every seed has. One series is returned as it is.
func meanBuckets(bss [][]bucket) []bucket {
	if len(bss) == 1 {
		return bss[0]
	}
	n := -1
	for _, bs := range bss {
		if n < 0 || len(bs) < n {
			n = len(bs)
		}
	}
	if n <= 0 {
		return nil
	}
	out := make([]bucket, n)
	for k := range out {
		b := bss[0][k]
		var last, lo, hi float64
		for _, bs := range bss {
			last += bs[k].Last
			lo += bs[k].Min
			hi += bs[k].Max
			b.FirstStep, b.LastStep = min(b.FirstStep, bs[k].FirstStep), max(b.LastStep, bs[k].LastStep)
		}
		f := float64(len(bss))
		b.Last, b.Min, b.Max = last/f, lo/f, hi/f
		out[k] = b
	}
	return out
}

// rankTable is the overview's ranking: rank, variant, val metric, val and
// train loss, gap, step, speed, status, in at most h lines.
func (m *overviewScreen) rankTable(st []standing, order []int, w, h, top int) []string {
	s := m.styles
	cols, judged := m.rankColumns(st, order, w)
	keep := fitColumns(cols, w)
	heads := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = c.head
	}
	out := []string{s.Heading.Render(tableLine(cols, keep, heads))}
	if note := valStepsNote(st, order); note != "" {
		out = append(out, s.Dim.Render(fit(note, w)))
	}
	rows := max(h-len(out), 1)
	if rows < len(order) {
		rows = max(rows-1, 1) // a line for "n of m"
	}
	sel := 0
	for r, j := range order {
		for _, i := range st[j].Variants {
			if i == m.st.Variant {
				sel = r
			}
		}
	}
	first := window(sel, rows, len(order))
	last := min(first+rows, len(order))
	for r := first; r < last; r++ {
		x := &st[order[r]]
		cells := m.rankCells(x, r)
		if judged {
			verdict := "leader"
			if r > 0 {
				verdict = noiseVerdict(x, &st[order[0]])
			}
			cells = append(cells[:3], append([]string{verdict}, cells[3:]...)...)
		}
		line := tableLine(cols, keep, cells)
		i := x.Variants[0]
		switch {
		case m.selected(x):
			line = s.Selected.Render(line)
		case m.hidden(i):
			line = s.Dim.Render(line)
		default:
			line = s.seriesStyle(i).Render(line)
		}
		m.lay.zones = append(m.lay.zones, zone{kind: zoneVariant, x0: 0, x1: w, y0: headerH + top + len(out), y1: headerH + top + len(out) + 1, val: i})
		out = append(out, line)
	}
	if hint := pageHint("variants", first, last, len(order), "←/→"); hint != "" {
		out = append(out, s.Dim.Render(hint))
	}
	return out
}

// valStepsNote says at which steps the ranked validations were taken when
// they differ (a live run whose variants run at different speeds): each is
// ranked on its newest. "" when every val is of one step. A variant that
// diverged or was stopped has no newer val to come: it is left out.
func valStepsNote(st []standing, order []int) string {
	var parts []string
	first, differ := -1, false
	for _, j := range order {
		x := &st[j]
		if !x.HaveVal || x.Status == probes.Diverged || x.Status == probes.Stopped {
			continue
		}
		if first < 0 {
			first = x.ValStep
		}
		differ = differ || x.ValStep != first
		parts = append(parts, fmt.Sprintf("%s %d", x.Key, x.ValStep))
	}
	if !differ {
		return ""
	}
	return "val of different steps, each its newest: " + strings.Join(parts, " · ")
}

// rankColumns are the ranking's columns at width w; judged: with seeds
// enough to judge, a column marks each gap to the leader beyond or within
// seed noise (2·SE, docs/findings.md's common rule).
func (m *overviewScreen) rankColumns(st []standing, order []int, w int) (cols []column, judged bool) {
	nameW := 8
	for _, x := range st {
		nameW = max(nameW, len([]rune(x.Key))+2+3*min(len(x.Variants)-1, 1)+1)
	}
	cols = []column{
		{head: "#", w: 2, right: true},
		{head: "variant", w: min(nameW, max(16, w/4))},
		{head: "val " + m.data.meta.MetricKind().Short(), w: 8, right: true},
		{head: "val loss", w: 8, right: true, drop: 2},
		{head: "train", w: 8, right: true},
		{head: "gap", w: 8, right: true, drop: 3},
		{head: "step", w: 7, right: true, drop: 4},
		{head: "steps/s", w: 7, right: true, drop: 5},
		{head: "status", w: 16, drop: 1},
	}
	for r, j := range order {
		if r > 0 && noiseVerdict(&st[j], &st[order[0]]) != "" {
			judged = true
		}
	}
	if judged {
		cols = append(cols[:3], append([]column{{head: "vs ★ (2·SE)", w: 12, drop: 2}}, cols[3:]...)...)
	}
	return cols, judged
}

// rankCells are standing x's cells, ranked r (0 the leader), without the
// noise verdict.
func (m *overviewScreen) rankCells(x *standing, r int) []string {
	metric := m.data.meta.MetricKind()
	name := x.Key
	if len(x.Variants) > 1 {
		name += fmt.Sprintf(" ×%d", len(x.Variants))
	}
	mark := "  "
	if r == 0 && x.HaveVal {
		mark = "★ "
	}
	name = mark + name
	met, val, gap := probes.Missing, probes.Missing, probes.Missing
	if x.HaveVal {
		met = metric.Format(x.Metric.Mean)
		val, gap = probes.FormatLoss(x.ValLoss.Mean), probes.FormatLoss(x.Gap.Mean)
	}
	return []string{fmt.Sprint(r + 1), name, met, val, probes.FormatLoss(x.TrainLoss.Mean), gap,
		fmt.Sprint(x.Step), probes.FormatValue(x.StepsPerSec.Mean), m.statusText(x)}
}

// selected reports whether the selected variant is one of x's.
func (m *overviewScreen) selected(x *standing) bool {
	for _, i := range x.Variants {
		if i == m.st.Variant {
			return true
		}
	}
	return false
}

// statusText is a standing's status in words.
func (m *common) statusText(x *standing) string {
	switch x.Status {
	case probes.Diverged:
		return fmt.Sprintf("diverged at %d", x.Stopped)
	case probes.Stopped:
		return fmt.Sprintf("stopped at %d", x.Stopped)
	case probes.Done:
		if x.Step == 0 {
			return "waiting"
		}
		return "done"
	}
	if x.Step == 0 {
		return "waiting"
	}
	if m.feed.Crashed() {
		return "killed/crashed" // ended without an end record: nothing more will come
	}
	return "running"
}
