package tui

import (
	"fmt"
	"math"
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
	out := []string{withNote(s.Heading.Render(p.String())+s.Dim.Render(" · "+layers[l]+" · "+probeDoc[p]),
		s.Dim.Render(m.windowNote()), w)}

	var series []chartSeries
	var shown []int
	vals := make([]float64, nv)
	for i := range m.data.variants {
		v := &m.data.variants[i]
		vals[i] = math.NaN()
		if h := v.probe(l, p); h != nil && !m.hidden(i) {
			bs := m.buckets(h)
			shown = append(shown, i)
			series = append(series, chartSeries{label: v.label, color: i, glyph: m.glyph(i), bs: bs})
			vals[i] = m.readoutVal(bs, false)
		}
	}
	fm := colFormat(vals)
	var legend []string
	for i := range m.data.variants {
		v := &m.data.variants[i]
		switch {
		case m.hidden(i):
			legend = append(legend, s.Dim.Render("("+v.label+" hidden)"))
		case v.probe(l, p) == nil:
			legend = append(legend, s.Dim.Render(v.label+": not measured"))
		default:
			legend = append(legend, m.legendEntry(i, v.label, "─", fm(vals[i])))
		}
	}
	if sel := clamp(m.st.Variant, 0, nv-1); !m.hidden(sel) {
		series = raise(series, m.data.variants[sel].label)
	}
	warm := m.chartWarmup(shown...)
	if warm > 0 {
		legend = append(legend, s.Dim.Render(fmt.Sprintf("┄ warm-up ≤%d", warm)))
	}
	legendLines := joinLegend(legend, w, 2)
	gridH := len(layers) + 1
	chartH := max(h-len(out)-len(legendLines)-gridH, (h-2)/2)
	if chartH >= 5 {
		out = append(out, m.drawChart(series, m.stepSpec(w, chartH, warm, len(out)))...)
	}
	out = append(out, legendLines...)

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
	rowsH := max(h-len(out)-1, 1)
	out = append(out, m.gridHead(hb.String(), len(out), nameW, cellW, first, last, rowsH, w))
	fms := make([]func(float64) string, nv)
	for i := first; i < last; i++ {
		fms[i] = m.columnFormat(&m.data.variants[i], p)
	}
	m.layerZones(len(out), l, rowsH, nameW)
	out = append(out, layerRows(s, layers, l, rowsH, nameW, first, last, func(v, li int) string {
		return m.cell(&m.data.variants[v], li, p, fms[v])
	})...)
	return out
}
