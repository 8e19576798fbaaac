package tui

import (
	"fmt"
	"math"

	"github.com/normtop/normtop/probes"
)

// spectrum: the normalised singular values σ_i/σ_1 of every variant's
// embedding, overlaid on a log10 axis, and the effective rank over the run.
// A collapsing spectrum (fast-decaying curve, falling effective rank) is the
// representation degeneration to look for.
func (m *Model) spectrum(w, h int) []string {
	s := m.styles
	out := []string{s.Heading.Render("embedding spectrum") + s.Dim.Render(" · σ_i/σ_1 on log10 axis, latest per variant; effective rank exp(H(σ/Σσ))")}
	nv := len(m.data.variants)
	series := make([][]float64, nv)
	colors := make([]int, nv)
	any := false
	for i := range m.data.variants {
		colors[i] = i
		sp := m.data.variants[i].lastSpec
		if sp == nil {
			continue
		}
		any = true
		series[i] = logSigma(sp.Sigma, w)
	}
	if !any {
		return append(out, "", s.Dim.Render("no spectrum recorded yet (one every --svd-every steps, computed off the training path)"))
	}
	tableH := nv + 1
	chartH := h - len(out) - tableH - 1
	if chartH >= 4 {
		out = append(out, m.chart(series, colors, w, chartH, true)...)
		for len(out) < 1+chartH {
			out = append(out, "")
		}
		out = append(out, s.Dim.Render(fmt.Sprintf("index i →  (σ_1 … σ_%d)", m.maxSigmaLen())))
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
