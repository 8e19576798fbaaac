package tui

import (
	"fmt"
	"strings"
)

// compare: one probe, every variant, per layer. The chart overlays all
// variants on the selected layer (PowerNorm's Figs. 2 and 4: batch vs
// running statistics and g_μ / g_σ² norms over training); the grid below
// shows every layer.
func (m *Model) compare(w, h int) []string {
	s := m.styles
	nv := len(m.data.variants)
	layers := m.data.meta.Layers
	if nv == 0 || len(layers) == 0 {
		return []string{"no variants or layers in this run"}
	}
	p := m.st.Probe
	l := clamp(m.st.Layer, 0, len(layers)-1)
	out := []string{s.Heading.Render(p.String()) + s.Dim.Render(" · "+probeDoc[p]+" (p: next probe)")}

	var legend strings.Builder
	legend.WriteString(s.Dim.Render(layers[l] + ": "))
	series := make([][]float64, nv)
	colors := make([]int, nv)
	glyphs := make([]string, nv)
	for i := range m.data.variants {
		v := &m.data.variants[i]
		series[i] = m.aligned(v.probe(l, p), w)
		colors[i] = i
		glyphs[i] = m.glyph(i)
		mark := legendMark(glyphs[i]) + " "
		if v.probe(l, p) == nil {
			mark = "(none) "
		}
		legend.WriteString(s.seriesStyle(i).Render(mark+v.label) + "  ")
	}
	gridH := len(layers) + 1
	chartH := max(h-len(out)-1-gridH, (h-2)/2)
	if chartH >= 4 {
		out = append(out, m.chart(series, colors, glyphs, w, chartH, m.st.Log)...)
		for len(out) < 1+chartH {
			out = append(out, "")
		}
	}
	out = append(out, legend.String())

	// Grid: layers × variants.
	nameW := m.layerNameWidth()
	ncols := max(1, (w-nameW)/cellW)
	first := window(m.st.Variant, ncols, nv)
	last := min(first+ncols, nv)
	var hb strings.Builder
	hb.WriteString(fmt.Sprintf("%-*s", nameW, "layer"))
	for i := first; i < last; i++ {
		name := fmt.Sprintf("%-*s", cellW, truncName(m.data.variants[i].label, cellW-1))
		hb.WriteString(s.seriesStyle(i).Bold(true).Render(name))
	}
	out = append(out, withHint(hb.String(), s.Dim.Render(pageHint("variants", first, last, nv, "←/→")), w))
	rowsH := max(h-len(out), 1)
	out = append(out, layerRows(s, layers, l, rowsH, nameW, first, last, func(v, li int) string {
		return m.cell(&m.data.variants[v], li, p)
	})...)
	return out
}
