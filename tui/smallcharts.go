package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// The Grid screen: a page of small charts, one per layer × probe that some
// variant measured, every variant overlaid on each (as W&B's LEET lays out
// its metrics), raw. / filters them by layer or probe name (a substring or a
// glob: "dist_*", "block0.*"); ↑/↓ and PgUp/PgDn page.

// Panel sizes: a chart narrower or shorter than these says little.
const (
	panelMinW = 38
	panelMinH = 9 // title, 6 plot rows, the x axis and its labels
	// gridMax is the most charts across and down a page: at most 16
	// charts a frame keep the Grid within the redraw budget of 5 ms at
	// 240×70 (BenchmarkView/Grid); a larger screen gets larger charts.
	gridMax = 4
)

// panel is one small chart: a probe at a layer.
type panel struct {
	layer int
	probe probes.Probe
}

// panels lists the layer × probe pairs some variant measured that match
// the filter, layer by layer, in probe order.
func (m *gridScreen) panels() []panel {
	vs := make([]*variantData, len(m.data.variants))
	for i := range vs {
		vs[i] = &m.data.variants[i]
	}
	measured := visibleProbes(vs...)
	var out []panel
	for l, name := range m.data.meta.Layers {
		for _, p := range measured {
			if !matchAny(m.filter.pattern, name, p.String(), name+"/"+p.String()) {
				continue
			}
			for _, v := range vs {
				if v.probe(l, p) != nil {
					out = append(out, panel{layer: l, probe: p})
					break
				}
			}
		}
	}
	return out
}

// gridLayout is how many panels fit across and down w×h.
func gridLayout(w, h int) (cols, rows int) {
	return clamp(w/panelMinW, 1, gridMax), clamp(h/panelMinH, 1, gridMax)
}

// gridScreen draws the page of small charts holding the selected page. It
// owns the page shown and its keys (gridKeys).
type gridScreen struct {
	page
	shown int      // the page shown (↑/↓, PgUp/PgDn, the wheel)
	pages int      // the pages laid out last
	buf   []bucket // the charts' series, reused from frame to frame (scratch)
}

func (m *gridScreen) View() []string { return m.gridView(m.w, m.h) }

// Update takes the screen's keys.
func (m *gridScreen) Update(msg tea.Msg) (tea.Cmd, bool) {
	if k, ok := keyMsg(msg); ok {
		return gridKeys.handle(&m.shown, m.pages, k, m.st.Replay)
	}
	return nil, false
}

// scroll: the wheel turns a page.
func (m *gridScreen) scroll(d int) { m.shown = turnPage(m.shown, d, m.pages) }

// filterChanged: a new text filter shows its first page.
func (m *gridScreen) filterChanged() { m.shown = 0 }

func (m *gridScreen) ShortHelp(replay bool) []key.Binding { return gridKeys.help(replay) }

// gridKeys is the Grid's key map over the page shown, given the pages:
// ↑/↓ and PgUp/PgDn turn one page, never past the last (↑/↓ are not in
// its help bar, which lists PgUp/PgDn); the others are the root's.
var gridKeys = keyTable[int, int]{
	{key: keymap.text},
	{key: keymap.page, do: turnKey},
	{key: keymap.cursor},
	{key: keymap.zoom},
	{key: keymap.toggle},
	{key: unlisted("up", "k", "down", "j"), do: turnKey},
}

func turnKey(shown *int, pages int, k keyName) tea.Cmd {
	*shown = turnPage(*shown, upDown(k), pages)
	return nil
}

// turnPage is the page d pages on from shown, within the pages.
func turnPage(shown, d, pages int) int { return clamp(shown+d, 0, pages-1) }

func (m *gridScreen) Guide() string { return gridGuide }

// gridGuide is the Grid's text in the full help.
var gridGuide = strings.TrimSpace(`
Grid: one small chart per layer × probe some variant measured, every variant overlaid, raw (each column
spans its steps' minimum to maximum, so a spike shows; s smooths the large charts, not these). / filters them by layer or probe name: a substring, or a glob (dist_*, block0.*, *ln1/g_var);
enter keeps the filter, esc clears it. ↑/↓ or PgUp/PgDn turn the pages.`)

func (m *gridScreen) gridView(w, h int) []string {
	s := m.styles
	if len(m.data.variants) == 0 || len(m.data.meta.Layers) == 0 {
		return []string{"no variants or layers in this run"}
	}
	ps := m.panels()
	filter := "/ filter by layer or probe (name or glob)"
	switch {
	case m.filter.typing:
		filter = "/" + m.filter.pattern + "▏ (enter: keep · esc: clear)"
	case m.filter.pattern != "":
		filter = "filter /" + m.filter.pattern + " (/ to change, esc in it to clear)"
	}
	m.buf = m.buf[:0]
	cols, rows := gridLayout(w, h-3)
	per := cols * rows
	pages := max((len(ps)+per-1)/per, 1)
	m.pages = pages
	page := clamp(m.shown, 0, pages-1)
	title := s.Heading.Render(fmt.Sprintf("%d charts", len(ps))) +
		s.Dim.Render(fmt.Sprintf(" · layer × probe, every variant · page %d of %d (↑/↓)", page+1, pages))
	out := []string{withNote(title, s.Dim.Render(m.windowNote()), w), s.Dim.Render(filter)}
	if len(ps) == 0 {
		return append(out, "", s.Dim.Render("no chart matches the filter"))
	}
	pw := w / cols
	first := page * per
	// A page of fewer charts than fit gives them the whole height.
	used := min(rows, (min(len(ps)-first, per)+cols-1)/cols)
	ph := (h - 3) / max(used, 1)
	for r := range rows {
		if first+r*cols >= len(ps) {
			break
		}
		block := make([]string, ph)
		for c := range cols {
			k := first + r*cols + c
			if k >= len(ps) {
				break
			}
			for i, line := range m.smallChart(ps[k], pw-1, ph) {
				block[i] += fit(line, pw-1) + " "
			}
		}
		out = append(out, block...)
	}
	return append(out, m.gridLegend(w))
}

// smallChart is one panel: its title and a chart of every shown variant.
func (m *gridScreen) smallChart(p panel, w, h int) []string {
	s := m.styles
	// One copy of each series' buckets, and one more for its smoothed
	// line: a page holds dozens of charts of every variant.
	// A small chart has 2 dot columns a cell: as many buckets suffice (a
	// merged bucket keeps its extremes, so a spike survives).
	raws := make([][]bucket, len(m.data.variants))
	for i := range m.data.variants {
		if h := m.data.variants[i].probe(p.layer, p.probe); h != nil && !m.hidden(i) {
			raws[i] = m.scratch(func(dst []bucket) []bucket { return h.AppendView(dst, min(seriesCapacity, 2*w)) })
		}
	}
	m.useLog(raws...)
	// Raw, each column's minimum to maximum: the Grid is a scan for spikes
	// and trends over many probes at once, where a smoothed line would
	// hide the one and a faint raw series behind it double the cost.
	var lines []chartSeries
	warm := 0
	for i, raw := range raws {
		if raw == nil {
			continue
		}
		v := &m.data.variants[i]
		if m.lay.logShown {
			logBuckets(raw)
		}
		lines = append(lines, chartSeries{label: v.label, color: i, glyph: m.glyph(i), bs: raw})
		warm = max(warm, v.warmup(p.layer, p.probe))
	}
	lo, hi := m.xRange()
	lines = widestFirst(lines, lo, hi)
	name := m.data.meta.Layers[p.layer] + " · " + p.probe.String()
	if m.lay.logShown {
		name += " (log)"
	}
	spec := chartSpec{w: w, h: h - 1, lo: lo, hi: hi, log: m.lay.logShown, warmup: warm, cursor: m.cursorStep()}
	return append([]string{s.Heading.Render(truncName(name, w))}, m.drawChart(lines, spec)...)
}

// scratch appends a series to the Grid's buffer, reused from frame to
// frame (a page is dozens of charts of every variant: fresh slices each
// frame made the garbage collector the Grid's largest cost), and returns
// it. A slice handed out stays valid when a later one grows the buffer.
func (m *gridScreen) scratch(add func([]bucket) []bucket) []bucket {
	start := len(m.buf)
	m.buf = add(m.buf)
	return m.buf[start:len(m.buf):len(m.buf)]
}

// gridLegend names every variant with its colour (or glyph).
func (m *gridScreen) gridLegend(w int) string {
	var entries []string
	for i := range m.data.variants {
		if m.hidden(i) {
			continue
		}
		entries = append(entries, m.legendEntry(i, m.data.variants[i].label, "─", ""))
	}
	if lines := joinLegend(entries, w, 1); len(lines) > 0 {
		return lines[0]
	}
	return ""
}
