package report

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/normtop/normtop/probes"
)

// plotGroup is one variant spec of one model over the seeds the runs hold.
type plotGroup struct {
	model, spec string
	seeds       []int64
	reps        []*plotRep
}

func (g *plotGroup) label(multiModel bool) string {
	l := g.spec
	if multiModel {
		l = g.model + " " + l
	}
	if len(g.seeds) > 1 {
		s := make([]string, len(g.seeds))
		for i, x := range g.seeds {
			s[i] = strconv.FormatInt(x, 10)
		}
		l += " (seeds " + strings.Join(s, ",") + ")"
	}
	return l
}

// plotFigureOf draws the series read for req: one panel, one colour per
// variant group, its seeds as lines (or faint under their smoothed mean
// and band with --smooth), evaluations as markers, the spectrum as mean ±
// sd over seeds.
func plotFigureOf(runs []*Run, reps []*plotRep, req PlotRequest, probe probes.Probe, isProbe bool) *Figure {
	var groups []*plotGroup
	multiModel := false
	for _, r := range reps {
		var g *plotGroup
		for _, o := range groups {
			if o.model == r.model && o.spec == r.spec {
				g = o
			}
		}
		if g == nil {
			g = &plotGroup{model: r.model, spec: r.spec}
			groups = append(groups, g)
		}
		g.seeds, g.reps = append(g.seeds, r.seed), append(g.reps, r)
		multiModel = multiModel || r.model != reps[0].model
	}
	metric := runs[0].Meta.MetricKind()
	panel := Panel{XLabel: "step", YLabel: req.Series, LogY: req.LogY}
	for ci, g := range groups {
		var raw, smooth [][]XY
		var evals [][]EvalXY
		var spectra [][]XY
		for _, r := range g.reps {
			if len(r.vals) > 0 {
				raw = append(raw, thin(len(r.vals), CurveBuckets, func(i int) XY { return XY{float64(r.steps.at(i)), float64(r.vals[i])} }))
				if req.Smooth > 1 {
					smooth = append(smooth, smoothed(len(r.vals), req.Smooth, CurveBuckets, r.steps.at, func(i int) float64 { return float64(r.vals[i]) }))
				}
			}
			evals = append(evals, r.evals)
			if r.spectrum != nil {
				spectra = append(spectra, spectrumXY(r.spectrum))
			}
		}
		label := g.label(multiModel)
		switch req.Series {
		case SeriesValLoss:
			panel.Series = append(panel.Series, evalMarkers(evals, ci, label, func(e EvalXY) float64 { return e.Loss })...)
		case SeriesValMetric:
			panel.Series = append(panel.Series, evalMarkers(evals, ci, label, func(e EvalXY) float64 { return metric.Value(e.Metric) })...)
		case SeriesSpectrum:
			panel.Series = append(panel.Series, meanBand(label, ci, spectra)...)
		default:
			if req.Smooth <= 1 {
				smooth = nil
			}
			panel.Series = append(panel.Series, seedLines(label, ci, raw, smooth)...)
		}
	}
	switch req.Series {
	case SeriesValLoss:
		panel.YLabel = "validation loss"
	case SeriesValMetric:
		panel.YLabel = "validation " + metric.Name() + unitSuffix(metric)
	case SeriesTrainLoss:
		panel.YLabel = "train loss"
	case SeriesSpectrum:
		panel.XLabel, panel.YLabel = "k", "σ_k / σ_1"
	}
	panel.Title = plotTitle(runs, req, isProbe)
	if req.Smooth > 1 && (isProbe || req.Series == SeriesTrainLoss) {
		panel.Title += fmt.Sprintf(", centred mean over %d values", req.Smooth)
	}
	panel.logSafe()
	fig := &Figure{Title: panel.Title, Cols: 1}
	if len(panel.Series) > 0 {
		fig.Panels = []Panel{panel}
	}
	return fig
}

// plotTitle: the series, the layer for a probe, the models and files.
func plotTitle(runs []*Run, req PlotRequest, isProbe bool) string {
	t := req.Series
	if isProbe {
		if req.Layer != "" {
			t += ", " + req.Layer
		} else if len(runs[0].Meta.Layers) > 0 {
			names := []string{}
			for _, r := range runs {
				if len(r.Meta.Layers) > 0 && !containsStr(names, r.Meta.Layers[0]) {
					names = append(names, r.Meta.Layers[0])
				}
			}
			t += ", first norm layer (" + strings.Join(names, ", ") + ")"
		}
	}
	var files []string
	for _, r := range runs {
		files = append(files, filepath.Base(r.Path))
	}
	return t + ": " + strings.Join(files, ", ")
}

func containsStr(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
