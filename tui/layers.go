package tui

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/normtop/normtop/probes"
)

// probeDoc is the one-line meaning of each probe (docs/math.md §5).
var probeDoc = [probes.NumProbes]string{
	probes.DistMu:     "‖μ_B − μ‖₂/d: batch vs running mean (PowerNorm Fig. 2)",
	probes.DistVar:    "‖σ²_B − σ²‖₂/d: batch vs running variance (PowerNorm Fig. 2)",
	probes.DistPsi2:   "‖ψ²_B − ψ²‖₂/d: batch vs running quadratic mean (PowerNorm Fig. 4)",
	probes.GMu:        "‖g_μ‖₂: gradient through the batch mean (PowerNorm Fig. 3)",
	probes.GVar:       "mean ‖g_σ²‖₂: gradient through the batch variance (PowerNorm Fig. 3)",
	probes.GPsi2:      "mean ‖g_ψ²‖₂: gradient through ψ² (PN-V, PN; PowerNorm Fig. 4)",
	probes.DxMean:     "mean of ∂ℓ/∂x per row (Xu et al. Theorem 1: 0 when the μ derivative is kept)",
	probes.DxVar:      "variance of ∂ℓ/∂x per row (Theorem 1: the σ derivative shrinks it)",
	probes.DyMean:     "mean of ∂ℓ/∂y per row",
	probes.DyVar:      "variance of ∂ℓ/∂y per row",
	probes.InMean:     "mean of the layer input",
	probes.InStd:      "std of the layer input",
	probes.InMaxAbs:   "max |x| of the layer input",
	probes.AdaFrac:    "AdaNorm: fraction of |y| ≥ 1/k (φ ≤ 0)",
	probes.PNGamma:    "PowerNorm Γ = mean x̂² (ν grows if Γ > 2/(1−α_b))",
	probes.PNNu:       "PowerNorm ‖ν‖₂",
	probes.GammaDrift: "‖γ − 1‖₂ (Xu et al.: bias/gain over-fitting suspect)",
	probes.BetaNorm:   "‖β‖₂ (Xu et al.: bias/gain over-fitting suspect)",
	probes.GWNorm:     "‖∂L/∂W‖_F of the weights the layer's output feeds (Xiong et al.: Post-LN vs Pre-LN)",
	probes.HNorm:      "LSTM: mean ‖h_t‖₂/√H over real (sample, t) (Ba et al.: stable with LayerNorm)",
	probes.HNormCV:    "LSTM: spread of ‖h_t‖₂/√H over t (coefficient of variation; FINDINGS vii-a)",
	probes.RdistMu:    "‖μ_B − μ‖₂/‖σ‖₂: scale-free batch vs running mean (docs/findings.md ii)",
	probes.RdistVar:   "‖σ²_B − σ²‖₂/‖σ²‖₂: scale-free batch vs running variance (docs/findings.md ii, iii)",
	probes.RdistPsi2:  "‖ψ²_B − ψ²‖₂/‖ψ²‖₂: scale-free batch vs running ψ² (docs/findings.md iii)",
}

const (
	sparkW   = 8
	valueW   = 8
	cellW    = sparkW + 1 + valueW + 1
	maxNameW = 16
)

// layerNameWidth is the width of the layer-name column.
func (m *common) layerNameWidth() int {
	w := 6
	for _, n := range m.data.meta.Layers {
		w = max(w, len([]rune(n)))
	}
	return min(w, maxNameW) + 1
}

// isOutlier reports whether a cell deserves highlighting: the value shown
// now is an outlier, because an outlier alert was raised at its step, or it
// is over 10× the median of the shown buckets (the probes' rule, so replays
// of files without alerts agree). An alert of an earlier step does not
// mark the cell (its history is on the Events screen).
func isOutlier(alerted bool, bs []bucket) bool {
	if alerted {
		return true
	}
	if len(bs) < 4 {
		return false
	}
	var abs [sparkW]float64
	n := min(len(bs), sparkW)
	for i := range n {
		abs[i] = math.Abs(bs[len(bs)-n+i].Last)
	}
	last := abs[n-1]
	sorted := abs[:n]
	sort.Float64s(sorted)
	med := sorted[n/2]
	return med > 0 && last > 10*med
}

// cell renders one sparkline + latest value, highlighted when an outlier.
// It reads one View of sparkW buckets from the series: O(capacity) once.
// fm is the column's number format (colFormat over the column).
func (m *common) cell(v *variantData, l int, p probes.Probe, fm func(float64) string) string {
	h := v.probe(l, p)
	if h == nil {
		return strings.Repeat(" ", sparkW) + " " + fmt.Sprintf("%-*s", valueW, probes.Missing) + " "
	}
	bs := h.View(sparkW)
	lastStep, last, _ := h.Last()
	// Sparklines stay raw (a spike is what they are for); the scale is
	// the user's, or logarithmic where this cell's values span decades.
	logScale := m.st.Log == logOn || (m.st.Log == logAuto && spansDecades(bs))
	spark := sparkValues(valuesOf(bs, 0, logScale), sparkW)
	val := fmt.Sprintf("%-*s", valueW, fm(last))
	if isOutlier(v.outlier[l][p] > 0 && v.outlier[l][p] == lastStep, bs) {
		return m.styles.Outlier.Render(spark+"!"+val) + " "
	}
	return spark + " " + val + " "
}

// columnFormat is the number format of probe p's latest values over
// every layer of v: one exponent style for the whole column.
func (m *common) columnFormat(v *variantData, p probes.Probe) func(float64) string {
	vals := make([]float64, 0, len(m.data.meta.Layers))
	for l := range m.data.meta.Layers {
		if h := v.probe(l, p); h != nil {
			if _, x, ok := h.Last(); ok {
				vals = append(vals, x)
			}
		}
	}
	return colFormat(vals)
}

// visibleProbes lists the probes variant v measured, in probe order.
func visibleProbes(vs ...*variantData) []probes.Probe {
	var out []probes.Probe
	for p := range probes.NumProbes {
		for _, v := range vs {
			if v.hasProbe(p) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// layersScreen: the selected variant's layers × probes grid, then a detail
// chart of the selected layer × probe.
type layersScreen struct{ page }

func (m *layersScreen) View() []string { return m.layersView(m.w, m.h) }

// bounds: p and P visit the probes the selected variant measured.
func (m *layersScreen) bounds(b *Bounds) {
	if n := len(m.data.variants); n > 0 {
		b.Probes = visibleProbes(&m.data.variants[clamp(m.st.Variant, 0, n-1)])
	}
}

func (m *layersScreen) ShortHelp(bool) []key.Binding { return keymap.probeChart() }

func (m *layersScreen) Guide() string {
	return "Layers: the selected variant's layers × probes, sparkline of the run and latest value; ! marks the value shown when it is an outlier " +
		"(alerted at its step, or > 10× the median shown; earlier alerts are on the Events screen). The chart follows the selected layer × probe. " +
		"Where the run has input histograms (python/normtop's histogram=), the layer's shows beside it: the latest (log count per bin of the input's own σ, " +
		"under and over at the sides) and, below, how it moved (steps × bins, newest at the bottom)."
}

func (m *layersScreen) layersView(w, h int) []string {
	s := m.styles
	if len(m.data.variants) == 0 {
		return []string{"no variants in this run"}
	}
	vi := clamp(m.st.Variant, 0, len(m.data.variants)-1)
	v := &m.data.variants[vi]
	out := []string{joinLR(s.seriesStyle(vi).Bold(true).Render(v.label)+s.Dim.Render("  layers × probes (sparkline of the run, latest value; ! = outlier)"),
		s.Dim.Render(fmt.Sprintf("variant %d/%d", vi+1, len(m.data.variants))), w)}
	ps := visibleProbes(v)
	if len(ps) == 0 {
		return append(out, "", s.Dim.Render("no probe values yet"))
	}
	nameW := m.layerNameWidth()
	ncols := max(1, (w-nameW)/cellW)
	sel := 0
	for i, p := range ps {
		if p <= m.st.Probe {
			sel = i
		}
	}
	first := window(sel, ncols, len(ps))
	last := min(first+ncols, len(ps))
	var hb strings.Builder
	hb.WriteString(fmt.Sprintf("%-*s", nameW, "layer"))
	for _, p := range ps[first:last] {
		name := fmt.Sprintf("%-*s", cellW, p.String())
		if p == m.st.Probe {
			hb.WriteString(s.Selected.Render(name))
		} else {
			hb.WriteString(s.Heading.Render(name))
		}
	}
	out = append(out, hb.String())
	if hint := pageHint("probes", first, last, len(ps), "p"); hint != "" {
		out[0] = joinLR(s.seriesStyle(vi).Bold(true).Render(v.label)+s.Dim.Render("  layers × probes (sparkline, latest value; ! = outlier)"),
			s.Dim.Render(fmt.Sprintf("variant %d/%d · %s", vi+1, len(m.data.variants), hint)), w)
	}

	layers := m.data.meta.Layers
	rowsH := len(layers)
	detailH := h - len(out) - rowsH - 1
	if detailH < 5 {
		detailH = 0
		rowsH = h - len(out)
	}
	m.layerZones(len(out), m.st.Layer, rowsH, nameW)
	var fms [probes.NumProbes]func(float64) string
	for _, p := range ps[first:last] {
		fms[p] = m.columnFormat(v, p)
	}
	lfirst := window(m.st.Layer, rowsH, len(layers))
	if hint := pageHint("layers", lfirst, min(lfirst+rowsH, len(layers)), len(layers), "↑/↓"); hint != "" {
		out[1] = joinLR(out[1], s.Dim.Render(hint), w)
	}
	for k, p := range ps[first:last] {
		x := nameW + k*cellW
		m.lay.zones = append(m.lay.zones, zone{kind: zoneProbe, x0: x, x1: x + cellW, y0: headerH + 1, y1: headerH + 2, val: int(p)})
	}
	out = append(out, layerRows(s, layers, m.st.Layer, rowsH, nameW, first, last, func(k, l int) string {
		return m.cell(v, l, ps[k], fms[ps[k]])
	})...)
	if detailH > 0 && m.st.Layer < len(layers) {
		l := m.st.Layer
		p := m.st.Probe
		hp := v.probe(l, p)
		m.useLog(rawBuckets(hp))
		bs := m.buckets(hp)
		cap := fmt.Sprintf("%s · %s = %s: %s", layers[l], p, m.readout(bs), probeDoc[p])
		warm := v.warmup(l, p)
		if warm > 0 {
			cap += fmt.Sprintf(" · ┄ warm-up ≤%d", warm)
		}
		out = append(out, withNote(s.Dim.Render(cap), s.Dim.Render(m.windowNote()), w))
		series := append(m.faintRaw(hp, vi), chartSeries{label: v.label, color: vi, bs: bs})
		pw := m.inputHistWidth(w, vi, l) // the layer's input histogram beside the chart, if any
		chart := m.drawChart(series, m.stepSpec(w-pw, detailH, warm, len(out)))
		out = append(out, m.besideInputHist(chart, w-pw, vi, l, pw)...)
	}
	return out
}
