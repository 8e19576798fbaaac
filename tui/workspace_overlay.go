package tui

import (
	"fmt"
	"sort"
	"strings"
)

// overlay is the chart of the picked runs' variants: smoothed train loss
// and val loss, run·variant, on one axis.
func (ws *Workspace) overlay(h int) []string {
	s := ws.styles
	var picked []int
	for i := range ws.runs {
		if ws.picked[i] {
			picked = append(picked, i)
		}
	}
	if len(picked) == 0 {
		return []string{"", s.Dim.Render("space: overlay the selected run's variants (several runs on one axis); enter: open it")}
	}
	// A throwaway screen context draws the chart with the dashboard's own code.
	m := &common{styles: s, st: NewState(true, 1), w: ws.w, h: ws.h, data: &store{}}
	m.st.Smooth = ws.smooth
	var series []chartSeries
	var legend []string
	models, metrics := map[string]bool{}, map[string]bool{}
	maxColor := -1
	// Colours count over the picked runs only (in list order), so that two
	// runs overlaid never share a colour while the palette lasts.
	base := 0
	last := 1
	for _, i := range picked {
		r := &ws.runs[i]
		if !r.loaded {
			legend = append(legend, s.Dim.Render(shortID(r)+": loading…"))
			continue
		}
		models[r.meta.Model] = true
		metrics[r.meta.Metric] = true
		last = max(last, r.data.step)
		for j := range r.data.variants {
			v := &r.data.variants[j]
			c := base + j
			maxColor = max(maxColor, c)
			label := shortID(r) + "·" + v.label
			tr := rawBuckets(v.series(seriesTrainLoss))
			if sm := v.smoothedTrain(ws.smooth); sm != nil {
				tr = rawBuckets(sm)
			}
			series = append(series,
				chartSeries{label: label, color: c, glyph: variantGlyphs[c%len(variantGlyphs)], bs: tr},
				chartSeries{label: label + " val", color: c, glyph: variantGlyphs[c%len(variantGlyphs)], bs: rawBuckets(v.series(seriesValLoss)), points: true})
			legend = append(legend, s.seriesStyle(c).Render(glyphOr(s, c)+" "+label))
		}
		base += len(r.data.variants)
	}
	m.data.step = last
	title := s.Heading.Render("loss") + s.Dim.Render(fmt.Sprintf(" · train ─ (%s) and val • of %d runs, run·variant", orDash(smoothNote(ws.smooth)), len(picked)))
	switch {
	case len(models) > 1:
		title += s.Warn.Render(" · different models: losses share the axis (nats), the tasks differ")
	case len(metrics) > 1:
		// One model on different data: a word's loss and a character's
		// are nats of different tokens.
		title += s.Warn.Render(" · different data (" + strings.Join(sortedKeys(metrics), ", ") + "): losses per different tokens share the axis")
	}
	if n := len(s.SeriesStyle); !s.NoColor && maxColor >= n {
		title += s.Warn.Render(fmt.Sprintf(" · %d lines, %d colours: colours repeat (the legend's order tells them apart)", maxColor+1, n))
	}
	out := []string{"", title}
	legendLines := joinLegend(legend, ws.w, 2)
	chartH := h - len(out) - len(legendLines)
	if chartH >= 5 {
		lo, hi := 1, last
		spec := chartSpec{w: ws.w, h: chartH, lo: lo, hi: hi, cursor: -1, yFrom: transientEnd(series, lo, hi)}
		out = append(out, m.drawChart(series, spec)...)
	}
	return append(out, legendLines...)
}

// shortID is a run's short name on the overlay: its run id without the
// model and seed suffix, or its file name.
func shortID(r *wsRun) string {
	id := r.meta.RunID
	if id == "" {
		id = r.path
	}
	if i := strings.IndexByte(id, '-'); i > 0 {
		id = id[:i]
	}
	return truncName(id, 18)
}

// glyphOr is the legend mark of colour c: a line, or its glyph without
// colour.
func glyphOr(s *Styles, c int) string {
	if s.NoColor {
		return variantGlyphs[c%len(variantGlyphs)]
	}
	return "─"
}

// sortedKeys are m's keys in order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
