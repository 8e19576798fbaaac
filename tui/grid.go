package tui

import (
	"fmt"
	"strings"
)

// window returns the first index of a run of n visible items out of total
// that keeps sel visible (paging in steps of n).
func window(sel, n, total int) int {
	if n >= total || n <= 0 {
		return 0
	}
	return min((sel/n)*n, total-n)
}

// gridHead finishes the heading line of a layers × variants grid drawn at
// body line `line`: each variant's column is a click zone, and what is
// paged (variants, layers) is said on the right, the names giving way.
func (m *common) gridHead(head string, line, nameW, colW, first, last, rowsH, w int) string {
	y := headerH + line
	for i := first; i < last; i++ {
		x := nameW + (i-first)*colW
		m.lay.zones = append(m.lay.zones, zone{kind: zoneVariant, x0: x, x1: x + colW, y0: y, y1: y + 1, val: i})
	}
	nl := len(m.data.meta.Layers)
	lf := window(clamp(m.st.Layer, 0, max(nl-1, 0)), rowsH, nl)
	var hints []string
	if h := pageHint("layers", lf, min(lf+rowsH, nl), nl, "↑/↓"); h != "" {
		hints = append(hints, h)
	}
	if h := pageHint("variants", first, last, len(m.data.variants), "←/→"); h != "" {
		hints = append(hints, h)
	}
	if len(hints) == 0 {
		return head
	}
	return joinLR(head, m.styles.Dim.Render(strings.Join(hints, " · ")), w)
}

// layerZones records the mouse zones of the layer rows that layerRows (or
// the layers screen) draws from body line `line`.
func (m *common) layerZones(line, sel, rowsH, nameW int) {
	n := len(m.data.meta.Layers)
	first := window(sel, rowsH, n)
	for li := first; li < min(first+rowsH, n); li++ {
		y := headerH + line + li - first
		m.lay.zones = append(m.lay.zones, zone{kind: zoneLayer, x0: 0, x1: nameW, y0: y, y1: y + 1, val: li})
	}
}

// layerRows renders the visible window of rowsH layer rows around the
// selected layer sel: the layer's name (highlighted when selected) followed
// by cell(column, layer) for each column in [first, last): a variant on the
// Compare and Gradients screens, a probe on the Layers screen.
func layerRows(s *Styles, layers []string, sel, rowsH, nameW, first, last int, cell func(v, li int) string) []string {
	var out []string
	lfirst := window(sel, rowsH, len(layers))
	for li := lfirst; li < min(lfirst+rowsH, len(layers)); li++ {
		var rb strings.Builder
		name := fmt.Sprintf("%-*s", nameW, truncName(layers[li], nameW-1))
		if li == sel {
			rb.WriteString(s.Selected.Render(name))
		} else {
			rb.WriteString(name)
		}
		for i := first; i < last; i++ {
			rb.WriteString(cell(i, li))
		}
		out = append(out, rb.String())
	}
	return out
}
