package tui

import (
	"fmt"
	"strings"

	"github.com/normtop/normtop/probes"
)

// The Grid screen: a page of small charts, one per layer × probe that some
// variant measured, every variant overlaid on each (as W&B's LEET lays out
// its metrics). / filters them by layer or probe name (a substring or a
// glob: "dist_*", "block0.*"); ↑/↓ and PgUp/PgDn page.

// Panel sizes: a chart narrower or shorter than these says little.
const (
	panelMinW = 38
	panelMinH = 9 // title, 6 plot rows, the x axis and its labels
)

// panel is one small chart: a probe at a layer.
type panel struct {
	layer int
	probe probes.Probe
}

// panels lists the layer × probe pairs some variant measured that match
// the filter, layer by layer, in probe order.
func (m *Model) panels() []panel {
	vs := make([]*variantData, len(m.data.variants))
	for i := range vs {
		vs[i] = &m.data.variants[i]
	}
	measured := visibleProbes(vs...)
	var out []panel
	for l, name := range m.data.meta.Layers {
		for _, p := range measured {
			if !matchAny(m.st.Filter, name, p.String(), name+"/"+p.String()) {
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
	return max(w/panelMinW, 1), max(h/panelMinH, 1)
}

// gridView draws the page of small charts holding the selected page.
func (m *Model) gridView(w, h int) []string {
	s := m.styles
	if len(m.data.variants) == 0 || len(m.data.meta.Layers) == 0 {
		return []string{"no variants or layers in this run"}
	}
	ps := m.panels()
	filter := "/ filter by layer or probe (name or glob)"
	switch {
	case m.st.Filtering:
		filter = "/" + m.st.Filter + "▏ (enter: keep · esc: clear)"
	case m.st.Filter != "":
		filter = "filter /" + m.st.Filter + " (/ to change, esc in it to clear)"
	}
	cols, rows := gridLayout(w, h-3)
	per := cols * rows
	pages := max((len(ps)+per-1)/per, 1)
	page := clamp(m.st.GridPage, 0, pages-1)
	title := s.Heading.Render(fmt.Sprintf("%d charts", len(ps))) +
		s.Dim.Render(fmt.Sprintf(" · layer × probe, every variant · page %d of %d (↑/↓)", page+1, pages))
	out := []string{withNote(title, s.Dim.Render(m.windowNote()), w), s.Dim.Render(filter)}
	if len(ps) == 0 {
		return append(out, "", s.Dim.Render("no chart matches the filter"))
	}
	pw := w / cols
	ph := (h - 3) / rows
	first := page * per
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
func (m *Model) smallChart(p panel, w, h int) []string {
	s := m.styles
	var raw [][]probes.Bucket
	for i := range m.data.variants {
		if !m.hidden(i) {
			raw = append(raw, rawBuckets(m.data.variants[i].probe(p.layer, p.probe)))
		}
	}
	m.useLog(raw...)
	var faint, lines []chartSeries
	warm := 0
	for i := range m.data.variants {
		v := &m.data.variants[i]
		h := v.probe(p.layer, p.probe)
		if h == nil || m.hidden(i) {
			continue
		}
		faint = append(faint, m.faintRaw(h, i)...)
		lines = append(lines, chartSeries{label: v.label, color: i, glyph: m.glyph(i), bs: m.buckets(h)})
		warm = max(warm, v.warmup)
	}
	name := m.data.meta.Layers[p.layer] + " · " + p.probe.String()
	if m.logShown {
		name += " (log)"
	}
	lo, hi := m.xRange()
	spec := chartSpec{w: w, h: h - 1, lo: lo, hi: hi, log: m.logShown, warmup: warm, cursor: m.cursorStep()}
	return append([]string{s.Heading.Render(truncName(name, w))}, m.drawChart(append(faint, lines...), spec)...)
}

// gridLegend names every variant with its colour (or glyph).
func (m *Model) gridLegend(w int) string {
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

// gridPages is how many pages the Grid has at the model's size.
func (m *Model) gridPages() int {
	cols, rows := gridLayout(m.w, m.h-headerH-1-3)
	per := cols * rows
	return max((len(m.panels())+per-1)/per, 1)
}

// gridKeys: on the Grid, ↑/↓ and PgUp/PgDn turn pages.
func gridKeys(s State, k string, b Bounds) (State, bool) {
	if s.Screen != ScreenGrid || s.Filtering {
		return s, false
	}
	switch k {
	case "up", "k", "pgup":
		s.GridPage = clamp(s.GridPage-1, 0, b.GridPages-1)
	case "down", "j", "pgdown":
		s.GridPage = clamp(s.GridPage+1, 0, b.GridPages-1)
	default:
		return s, false
	}
	return s, true
}

// gridHint is the Grid's line in the full help.
var gridHint = strings.TrimSpace(`
Grid: one small chart per layer × probe some variant measured, every variant overlaid (smoothed, raw faint
behind). / filters them by layer or probe name: a substring, or a glob (dist_*, block0.*, *ln1/g_var);
enter keeps the filter, esc clears it. ↑/↓ or PgUp/PgDn turn the pages.`)
