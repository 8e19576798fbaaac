package tui

import (
	"fmt"
	"math"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/normtop/normtop/probes"
)

// compareScreen: one probe, every variant, per layer. The chart overlays all
// variants on the selected layer (PowerNorm's Figs. 2 and 4: batch vs
// running statistics and g_μ / g_σ² norms over training); the grid below
// shows every layer.
type compareScreen struct{ page }

func (m *compareScreen) View() []string { return m.compare(m.w, m.h) }

// bounds: p and P visit the probes some variant measured.
func (m *compareScreen) bounds(b *Bounds) {
	vs := make([]*variantData, len(m.data.variants))
	for i := range vs {
		vs[i] = &m.data.variants[i]
	}
	b.Probes = visibleProbes(vs...)
}

func (m *compareScreen) ShortHelp(bool) []key.Binding { return keymap.probeChart() }

func (m *compareScreen) Guide() string {
	return "Compare: one probe (p: only probes some variant measured) for every variant, overlaid, per layer; ┄ on the " +
		"step axis marks the warm-up of running statistics (⌈3/m⌉ steps, docs/math.md §5). PowerNorm (Shen et al.): dist_mu / dist_var (Fig. 2) " +
		"and g_mu / g_var (Fig. 3) are large with persistent outliers for BatchNorm in Transformers; the " +
		"quadratic mean's dist_psi2 / g_psi2 fluctuate far less (Fig. 4)."
}

func (m *compareScreen) compare(w, h int) []string {
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

	series, legend, warm := m.compareSeries(l, p)
	legendLines := joinLegend(legend, w, 2)
	gridH := len(layers) + 1
	chartH := max(h-len(out)-len(legendLines)-gridH, (h-2)/2)
	if chartH >= 5 {
		out = append(out, m.drawChart(series, m.stepSpec(w, chartH, warm, len(out)))...)
	}
	out = append(out, legendLines...)

	return append(out, m.compareGrid(w, h, l, p, len(out))...)
}

// compareSeries is the Compare chart's lines (probe p on layer l, one per
// standing, the leader last) and their legend, and the warm-up
// window shaded.
func (m *compareScreen) compareSeries(l int, p probes.Probe) (series []chartSeries, legend []string, warm int) {
	s := m.styles
	// One line per standing: a variant, or the seeds of one spec as their
	// mean, as on the Overview; the grid below keeps every seed.
	st := m.data.standings()
	var raw [][]bucket
	for _, v := range m.data.variants {
		if !m.hidden(v.idx) {
			raw = append(raw, rawBuckets(v.probe(l, p)))
		}
	}
	m.useLog(raw...)
	var faint []chartSeries
	var shown []int
	vals := make([]float64, len(st))
	for k, x := range st {
		i := x.Variants[0]
		vals[k] = math.NaN()
		var bss [][]bucket
		for _, j := range x.Variants {
			if h := m.data.variants[j].probe(l, p); h != nil {
				bss = append(bss, m.buckets(h))
				shown = append(shown, j)
				if !m.hidden(i) {
					faint = append(faint, m.faintRaw(h, i)...)
				}
			}
		}
		if len(bss) == 0 || m.hidden(i) {
			continue
		}
		bs := meanBuckets(bss)
		series = append(series, chartSeries{label: seedLabel(x), color: i, glyph: m.glyph(i), bs: bs})
		vals[k] = m.readoutVal(bs, false)
	}
	// The leader is drawn last; a line another covers says so.
	series = m.drawByRank(series, st)
	lo, hi := m.xRange()
	covered := coveredBy(series, lo, hi, transientEnd(series, lo, hi))
	fm := colFormat(vals)
	for k, x := range st {
		i := x.Variants[0]
		switch {
		case m.hidden(i):
			legend = append(legend, s.Dim.Render("("+seedLabel(x)+" hidden)"))
		case math.IsNaN(vals[k]) && m.data.variants[i].probe(l, p) == nil:
			legend = append(legend, s.Dim.Render(seedLabel(x)+": not measured"))
		default:
			legend = append(legend, m.legendEntry(i, seedLabel(x), "─", joinNotes(fm(vals[k]), coverNote(covered, seedLabel(x)))))
		}
	}
	series = append(faint, series...)
	if n := smoothNote(m.st.Smooth); n != "" {
		// Two "latest" values of one probe on one screen: say which is which.
		legend = append(legend, s.Dim.Render("values: "+n+"; the table below: the raw latest"))
	}
	warm = m.chartWarmup(l, p, shown...)
	if warm > 0 {
		legend = append(legend, s.Dim.Render(fmt.Sprintf("┄ warm-up ≤%d", warm)))
	}
	return series, legend, warm
}

// compareGrid is the Compare screen's layers × variants table of probe p
// (layer l selected) under the chart, its head on screen line line.
func (m *compareScreen) compareGrid(w, h, l int, p probes.Probe, line int) []string {
	s := m.styles
	nv := len(m.data.variants)
	layers := m.data.meta.Layers
	var out []string
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
	rowsH := max(h-line-1, 1)
	out = append(out, m.gridHead(hb.String(), line, nameW, cellW, first, last, rowsH, w))
	fms := make([]func(float64) string, nv)
	for i := first; i < last; i++ {
		fms[i] = m.columnFormat(&m.data.variants[i], p)
	}
	m.layerZones(line+1, l, rowsH, nameW)
	out = append(out, layerRows(s, layers, l, rowsH, nameW, first, last, func(v, li int) string {
		return m.cell(&m.data.variants[v], li, p, fms[v])
	})...)
	return out
}
