package tui

import (
	"fmt"
	"math"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/normtop/normtop/probes"
)

const gradCellW = 40

// gradientsScreen: the Theorem-1 view of Xu et al. For each layer and variant,
// the mean of ∂ℓ/∂x next to the mean of ∂ℓ/∂y (normalization re-centres
// the gradient: |mean ∂x| ≪ |mean ∂y|) and the variance ratio var∂x/var∂y
// (normalization rescales it), and the norm of the gradient of the weights
// the layer's output feeds (gw_norm: Xiong et al.'s Pre-LN/Post-LN
// comparison). The chart follows the selected variant and
// layer over the run.
type gradientsScreen struct{ page }

func (m *gradientsScreen) View() []string { return m.gradients(m.w, m.h) }

func (m *gradientsScreen) ShortHelp(bool) []key.Binding { return keymap.probeChart() }

func (m *gradientsScreen) Guide() string {
	return "Gradients: Theorem 1 of Xu et al. Keeping the μ derivative re-centres ∂ℓ/∂x (mean 0: layernorm, " +
		"layernorm-simple, detach-variance); detach-mean and detachnorm give mean ∂ℓ/∂y / σ. Keeping the σ " +
		"derivative re-scales (shrinks var ∂ℓ/∂x): compare var x/y across variants; 'none' gives 1."
}

func (m *gradientsScreen) gradients(w, h int) []string {
	s := m.styles
	nv := len(m.data.variants)
	layers := m.data.meta.Layers
	if nv == 0 || len(layers) == 0 {
		return []string{"no variants or layers in this run"}
	}
	vi := clamp(m.st.Variant, 0, nv-1)
	l := clamp(m.st.Layer, 0, len(layers)-1)
	out := []string{s.Heading.Render("Theorem 1 (Xu et al.)") + s.Dim.Render(" · per row: mean ∂ℓ/∂x vs mean ∂ℓ/∂y, var∂x/var∂y · ‖∂W‖: gw_norm")}

	nameW := m.layerNameWidth()
	ncols := max(1, (w-nameW)/gradCellW)
	first := window(vi, ncols, nv)
	last := min(first+ncols, nv)
	var hb, sb strings.Builder
	hb.WriteString(fmt.Sprintf("%-*s", nameW, "layer"))
	sb.WriteString(strings.Repeat(" ", nameW))
	for i := first; i < last; i++ {
		st := s.seriesStyle(i).Bold(true)
		if i == vi {
			st = s.Selected
		}
		hb.WriteString(st.Render(fmt.Sprintf("%-*s", gradCellW, truncName(m.data.variants[i].label, gradCellW-1))))
		sb.WriteString(s.Dim.Render(fmt.Sprintf("%-10s%-10s%-10s%-10s", "mean∂x", "mean∂y", "var x/y", "‖∂W‖")))
	}
	headAt := len(out)
	out = append(out, hb.String(), sb.String())

	rowsH := len(layers)
	chartH := h - len(out) - rowsH - 1
	if chartH < 5 {
		chartH = 0
		rowsH = h - len(out)
	}
	out[headAt] = m.gridHead(out[headAt], headAt, nameW, gradCellW, first, last, rowsH, w)
	m.layerZones(len(out), l, rowsH, nameW)
	out = append(out, layerRows(s, layers, l, rowsH, nameW, first, last, func(v, li int) string {
		return gradCell(&m.data.variants[v], li)
	})...)
	if chartH > 0 {
		v := &m.data.variants[vi]
		hx, hy := v.probe(l, probes.DxVar), v.probe(l, probes.DyVar)
		m.useLog(rawBuckets(hx), rawBuckets(hy))
		dx, dy := m.buckets(hx), m.buckets(hy)
		vx, vy := m.readoutVal(dx, false), m.readoutVal(dy, false)
		fm := colFormat([]float64{vx, vy})
		gx, gy := "─", "─"
		if s.NoColor {
			gx, gy = "x", "y"
		}
		// ∂x and ∂y take the palette colours after the run's variants:
		// the first two would paint the selected variant's lines in
		// layernorm's and batchnorm's colours.
		cx, cy := nv%len(s.SeriesStyle), (nv+1)%len(s.SeriesStyle)
		out = append(out, s.Dim.Render(fmt.Sprintf("%s · %s: ", v.label, layers[l]))+
			s.seriesStyle(cx).Render(gx+" var ∂ℓ/∂x "+fm(vx))+"  "+s.seriesStyle(cy).Render(gy+" var ∂ℓ/∂y "+fm(vy))+s.Dim.Render(logNote(m.lay.logShown)))
		series := append(m.faintRaw(hx, cx), m.faintRaw(hy, cy)...)
		series = append(series,
			chartSeries{label: "dx", color: cx, glyph: "x", bs: dx},
			chartSeries{label: "dy", color: cy, glyph: "y", bs: dy})
		out = append(out, m.drawChart(series, m.stepSpec(w, chartH, 0, len(out)))...) // gradients: no window
	}
	return out
}

func logNote(on bool) string {
	if on {
		return "  (log10)"
	}
	return "  (l: log scale)"
}

func gradCell(v *variantData, l int) string {
	last := func(p probes.Probe) float64 {
		if h := v.probe(l, p); h != nil {
			if _, x, ok := h.Last(); ok {
				return x
			}
		}
		return math.NaN()
	}
	dxm, dym := last(probes.DxMean), last(probes.DyMean)
	dxv, dyv := last(probes.DxVar), last(probes.DyVar)
	ratio := math.NaN()
	if dyv != 0 && !math.IsNaN(dyv) {
		ratio = dxv / dyv
	}
	// Ten cells a value: -6.60e-10 is nine.
	return fmt.Sprintf("%-10s%-10s%-10s%-10s", valueExp(dxm), valueExp(dym), probes.FormatValue(ratio), valueExp(last(probes.GWNorm)))
}
