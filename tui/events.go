package tui

import (
	"fmt"

	"github.com/normtop/normtop/probes"
)

// eventsView lists alerts oldest first with step, variant and layer. In
// replay, Enter seeks to the selected alert's step.
func (m *Model) eventsView(w, h int) []string {
	s := m.styles
	evs := m.data.events
	title := s.Heading.Render(fmt.Sprintf("events (%d)", len(evs)))
	if m.rd != nil {
		title += s.Dim.Render(" · ↑/↓ select, enter: jump to its step")
	}
	if m.data.dropped > 0 {
		title += s.Dim.Render(fmt.Sprintf(" · %d older dropped", m.data.dropped))
	}
	out := []string{title}
	if len(evs) == 0 {
		return append(out, "", s.Dim.Render("no alerts so far (divergence, outliers, ν growth, AdaNorm φ ≤ 0, over-fitting)"))
	}
	out = append(out, s.Heading.Render(fmt.Sprintf("%8s  %-18s %-14s %-12s %s", "step", "variant", "layer", "kind", "message")))
	rows := h - len(out)
	sel := clamp(m.st.Event, 0, len(evs)-1)
	first := max(0, min(sel-rows/2, len(evs)-rows))
	for i := first; i < min(first+rows, len(evs)); i++ {
		e := &evs[i]
		layer := "–"
		if e.Layer >= 0 && e.Layer < len(m.data.meta.Layers) {
			layer = m.data.meta.Layers[e.Layer]
		}
		vname := "?"
		if e.variant < len(m.data.variants) {
			vname = m.data.variants[e.variant].label
		}
		line := fmt.Sprintf("%8d  %-18s %-14s %-12s %s", e.Step, truncName(vname, 18), truncName(layer, 14), e.Kind, e.Msg)
		switch {
		case i == sel:
			line = s.Selected.Render(fit(line, w))
		case e.Kind == probes.AlertDivergence:
			line = s.Bad.Render(line)
		default:
			line = s.Warn.Render(line)
		}
		out = append(out, line)
	}
	return out
}
