package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/normtop/normtop/probes"
)

// spectrum: the normalised singular values σ_i/σ_1 of every variant's
// embedding, overlaid on a log10 axis, and the effective rank over the run.
// A collapsing spectrum (fast-decaying curve, falling effective rank) is the
// representation degeneration to look for.
func (m *Model) spectrum(w, h int) []string {
	s := m.styles
	out := []string{s.Heading.Render("embedding spectrum") + s.Dim.Render(" · σ_i/σ_1 on a log10 axis, latest per variant; effective rank exp(H(σ/Σσ))")}
	nv := len(m.data.variants)
	// One series per variant (latest spectrum), then the selected variant's
	// first spectrum dotted: how its spectrum changed over the run.
	series := make([][]float64, nv+1)
	colors := make([]int, nv+1)
	glyphs := make([]string, nv+1)
	var legend strings.Builder
	any := false
	for i := range m.data.variants {
		colors[i], glyphs[i] = i, m.glyph(i)
		v := &m.data.variants[i]
		if v.lastSpec == nil {
			continue
		}
		any = true
		series[i] = logSigma(v.lastSpec.Sigma, w)
		legend.WriteString(s.seriesStyle(i).Render(legendMark(glyphs[i])+" "+v.label) + "  ")
	}
	if !any {
		return append(out, "", s.Dim.Render("no spectrum recorded yet (one every --svd-every steps, computed off the training path)"))
	}
	sel := clamp(m.st.Variant, 0, nv-1)
	if first := m.data.variants[sel].firstSpec; first != nil {
		series[nv], colors[nv], glyphs[nv] = logSigma(first.Sigma, w), sel, "·"
		legend.WriteString(s.seriesStyle(sel).Render(fmt.Sprintf("· %s at step %d (←/→)", m.data.variants[sel].label, first.Step)))
	}
	tableH := nv + 1
	chartH := h - len(out) - tableH - 2
	if chartH >= 4 {
		out = append(out, m.chart(series, colors, glyphs, w, chartH, true)...)
		for len(out) < 1+chartH {
			out = append(out, "")
		}
		out = append(out, s.Dim.Render(fmt.Sprintf("index i → (σ_1 … σ_%d)  ", m.maxSigmaLen()))+legend.String())
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
			v.lastSpec.Step, len(v.lastSpec.Sigma), sparkline(v.series(probes.SeriesEffRank), sparkW, false, false)))
	}
	return out
}

// logSigma resamples σ to at most w points (by index) on a log10 scale.
func logSigma(sigma []float64, w int) []float64 {
	n := len(sigma)
	k := min(n, w)
	out := make([]float64, k)
	for i := range k {
		v := sigma[i*n/k]
		if v > 0 {
			out[i] = math.Log10(v)
		} else {
			out[i] = math.NaN()
		}
	}
	return out
}

func (m *Model) maxSigmaLen() int {
	n := 0
	for i := range m.data.variants {
		if sp := m.data.variants[i].lastSpec; sp != nil {
			n = max(n, len(sp.Sigma))
		}
	}
	return n
}
