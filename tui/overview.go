package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/normtop/normtop/probes"
)

const overviewMinCol = 26 // narrowest variant column

// overview: one column per variant with train/val loss, gap, status and
// speed. Variants that do not fit page with ←/→.
func (m *Model) overview(w, h int) []string {
	nv := len(m.data.variants)
	if nv == 0 {
		return []string{"no variants in this run"}
	}
	ncols := min(nv, max(1, w/overviewMinCol))
	colW := w / ncols
	first := window(m.st.Variant, ncols, nv)
	blocks := make([][]string, 0, ncols)
	widths := make([]int, 0, ncols)
	for i := first; i < first+ncols; i++ {
		cw := colW
		if i == first+ncols-1 {
			cw = w - colW*(ncols-1)
		}
		blocks = append(blocks, m.overviewColumn(i, cw-1, h))
		widths = append(widths, cw)
	}
	out := hcat(blocks, widths, h)
	if ncols < nv {
		out[h-1] = m.styles.Dim.Render(fmt.Sprintf("variants %d–%d of %d (←/→)", first+1, first+ncols, nv))
	}
	return out
}

func (m *Model) overviewColumn(i, w, h int) []string {
	s := m.styles
	v := &m.data.variants[i]
	out := make([]string, 0, h)
	title := s.seriesStyle(i).Bold(true).Render(v.label)
	if i == m.st.Variant {
		title = s.Selected.Render("▸ ") + title
	}
	out = append(out, joinLR(title, m.statusBadge(v), w))

	infoH := 5
	scale := "loss"
	if m.st.Log {
		scale = "loss (log10)"
	}
	out = append(out, s.Dim.Render(scale+"  ─ train  • val"))
	chartH := h - len(out) - infoH
	if chartH >= 3 {
		cw := w
		series := [][]float64{
			m.aligned(v.series(probes.SeriesTrainLoss), cw),
			m.aligned(v.series(probes.SeriesValLoss), cw),
		}
		lines := m.chart(series, []int{i, i}, []string{"", "•"}, cw, chartH, m.st.Log)
		for len(lines) < chartH {
			lines = append(lines, "")
		}
		out = append(out, lines...)
	}
	metric := m.data.meta.Metric
	val, gap, met := "–", "–", "–"
	if v.haveVal {
		val = fmtVal(v.lastVal)
		if !math.IsNaN(v.lastGap) {
			gap = fmt.Sprintf("%+.4f", v.lastGap)
		}
		met = fmtMetric(metric, v.lastMetric)
	}
	train := "–"
	if h := v.series(probes.SeriesTrainLoss); h != nil {
		if _, t, ok := h.Last(); ok {
			train = fmtVal(t)
		}
	}
	out = append(out,
		fmt.Sprintf("train %-8s val %s", train, val),
		fmt.Sprintf("gap   %-8s %s %s", gap, metricName(metric), met),
		fmt.Sprintf("step  %-8d %.1f/s", v.step, v.stepsPerSec),
	)
	if v.lastTest != nil {
		out = append(out, fmt.Sprintf("test  %-8s %s %s", fmtVal(v.lastTest.Loss), metricName(metric), fmtMetric(metric, v.lastTest.Metric)))
	} else {
		out = append(out, s.Dim.Render(v.specLine(m.data.meta.Variants[i])))
	}
	for j := range out {
		out[j] = fit(out[j], w)
	}
	return out
}

// specLine shows a variant's options on their own line: the column title
// (the full spec) is often too narrow to show them.
func (v *variantData) specLine(vm probes.VariantMeta) string {
	if _, opts, ok := strings.Cut(vm.Spec, ":"); ok && opts != "" {
		return "opts  " + opts
	}
	return ""
}

func (m *Model) statusBadge(v *variantData) string {
	s := m.styles
	switch v.status {
	case probes.Diverged:
		return s.Bad.Render(fmt.Sprintf("diverged at %d", v.stoppedAt))
	case probes.Done:
		return s.Good.Render("done")
	case probes.Stopped:
		return s.Warn.Render(fmt.Sprintf("stopped at %d", v.stoppedAt))
	}
	if v.step == 0 {
		return s.Dim.Render("waiting")
	}
	return s.Good.Render("running")
}

func metricName(metric string) string {
	if metric == "" {
		return "metric"
	}
	if metric == "accuracy" {
		return "acc"
	}
	return metric
}

func fmtMetric(metric string, v float64) string {
	if metric == "accuracy" {
		return fmt.Sprintf("%.2f%%", 100*v)
	}
	return fmtVal(v)
}
