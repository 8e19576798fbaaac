package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
)

// spectrumScreen: the normalised singular values σ_i/σ_1 of every variant's
// embedding, overlaid on a log10 axis, and the effective rank over the run.
// A collapsing spectrum (fast-decaying curve, falling effective rank) is the
// representation degeneration to look for.
type spectrumScreen struct{ page }

func (m *spectrumScreen) View() []string { return m.spectrum(m.w, m.h) }

// ShortHelp: the Spectrum has no keys of its own.
func (m *spectrumScreen) ShortHelp(bool) []key.Binding { return nil }

func (m *spectrumScreen) Guide() string {
	return "Spectrum: embedding singular values σ_i/σ_1 on a log axis; effective rank exp(H(σ/Σσ)) now, at the first " +
		"spectrum, and over the run. PowerNorm Fig. 6: PN's singular values decay more slowly than LN's " +
		"(fast decay = embeddings squeezed into a small subspace)."
}

func (m *spectrumScreen) spectrum(w, h int) []string {
	s := m.styles
	out := []string{s.Heading.Render("embedding spectrum") + s.Dim.Render(" · σ_i/σ_1 on a log10 axis, latest per variant; effective rank exp(H(σ/Σσ))")}
	nv := len(m.data.variants)
	if m.data.meta.Model != "" && m.data.meta.Model != "transformer" {
		return append(out, "", s.Dim.Render(fmt.Sprintf("spectrum: transformer runs only (this is a %s run: it has no embedding matrix)", m.data.meta.Model)))
	}
	// One series per variant (latest spectrum), then the selected variant's
	// first spectrum as markers: how its spectrum changed over the run.
	var series []chartSeries
	var legend []string
	any := false
	for i := range m.data.variants {
		v := &m.data.variants[i]
		if v.lastSpec == nil || m.hidden(i) {
			continue
		}
		any = true
		series = append(series, chartSeries{label: v.label, color: i, glyph: m.glyph(i), bs: sigmaBuckets(v.lastSpec.Sigma)})
	}
	// The leader is drawn last; a line another covers says so.
	series = m.drawByRank(series, m.data.standings())
	covered := coveredBy(series, 1, max(m.maxSigmaLen(), 2), 0)
	for i := range m.data.variants {
		v := &m.data.variants[i]
		if v.lastSpec != nil && !m.hidden(i) {
			legend = append(legend, m.legendEntry(i, v.label, "─", coverNote(covered, v.label)))
		}
	}
	if !any {
		return append(out, "", s.Dim.Render("no spectrum recorded yet (one every --svd-every steps, computed off the training path)"))
	}
	sel := clamp(m.st.Variant, 0, nv-1)
	if first := m.data.variants[sel].firstSpec; first != nil && !m.hidden(sel) {
		series = append(series, chartSeries{label: "first", color: sel, glyph: "·", bs: sigmaBuckets(first.Sigma), points: true})
		legend = append(legend, s.seriesStyle(sel).Render(fmt.Sprintf("• %s at step %d (←/→)", m.data.variants[sel].label, first.Step)))
	}
	tableH := nv + 1
	legendLines := joinLegend(legend, w, 2)
	chartH := h - len(out) - tableH - len(legendLines) - 1
	if chartH >= 5 {
		spec := chartSpec{w: w, h: chartH, lo: 1, hi: max(m.maxSigmaLen(), 2), log: true, cursor: -1}
		out = append(out, m.drawChart(series, spec)...)
		out = append(out, s.Dim.Render(fmt.Sprintf("index i of σ_1 … σ_%d", m.maxSigmaLen())))
		out = append(out, legendLines...)
	}
	sparkW := max(w-59, 8)
	out = append(out, s.Heading.Render(fmt.Sprintf("%-22s %8s %8s %8s %6s  %s", "variant", "eff rank", "first", "at step", "dims", "eff rank over run")))
	for i := range m.data.variants {
		v := &m.data.variants[i]
		name := s.seriesStyle(i).Render(fmt.Sprintf("%-22s", truncName(v.label, 22)))
		if v.lastSpec == nil {
			out = append(out, name+s.Dim.Render(" –"))
			continue
		}
		out = append(out, fmt.Sprintf("%s %8.2f %8.2f %8d %6d  %s", name, v.lastSpec.EffRank, v.firstSpec.EffRank,
			v.lastSpec.Step, len(v.lastSpec.Sigma), sparkline(v.series(seriesEffRank), sparkW, 0, false)))
	}
	return out
}

// sigmaBuckets turns σ_i/σ_1 into one log10-scaled point per index i
// (1-based), so the spectrum is drawn by the same chart as the steps.
func sigmaBuckets(sigma []float64) []bucket {
	bs := make([]bucket, len(sigma))
	for i, v := range sigma {
		bs[i] = bucket{FirstStep: i + 1, LastStep: i + 1, Min: v, Max: v, Last: v, Count: 1}
	}
	logBuckets(bs)
	return bs
}

func (m *spectrumScreen) maxSigmaLen() int {
	n := 0
	for i := range m.data.variants {
		if sp := m.data.variants[i].lastSpec; sp != nil {
			n = max(n, len(sp.Sigma))
		}
	}
	return n
}
