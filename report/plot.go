package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// `normtop plot`: one chart of one recorded series of several run files,
// overlaid, for a paper: a probe of one norm layer, the train or
// validation loss, the validation metric, or the embedding spectrum.

// The series plot knows besides the probes.
const (
	SeriesTrainLoss = "train_loss"
	SeriesValLoss   = "val_loss"
	SeriesValMetric = "val_metric"
	SeriesSpectrum  = "spectrum"
)

// PlotSeriesNames are every name --probe takes.
func PlotSeriesNames() []string {
	out := []string{SeriesTrainLoss, SeriesValLoss, SeriesValMetric, SeriesSpectrum}
	for p := probes.Probe(0); p < probes.NumProbes; p++ {
		out = append(out, p.String())
	}
	return out
}

// PlotRequest is what to draw.
type PlotRequest struct {
	Series   string   // a probe name or one of the Series* names
	Layer    string   // a norm-site name; "" for each run's first norm layer
	Variants []string // specs or registry names to keep; nil for all
	LogY     bool
	Smooth   int // centred moving mean over this many values (≤ 1: none)
}

// BadRequest is a request the runs cannot answer (a series, layer or
// variant they do not have, runs that cannot share an axis): a usage error.
type BadRequest struct{ Msg string }

func (e *BadRequest) Error() string { return e.Msg }

func badf(format string, args ...any) error { return &BadRequest{fmt.Sprintf(format, args...)} }

// plotRep is one variant of one run file as plot reads it.
type plotRep struct {
	model, spec string
	seed        int64
	vals        []float32
	steps       stepSeq
	evals       []EvalXY
	spectrum    *probes.Spectrum
}

// PlotFigure reads the run files and draws req. Errors about the request
// are *BadRequest; others are the reader's (missing or corrupt files).
func PlotFigure(paths []string, req PlotRequest) (*Figure, error) {
	probe, isProbe := probes.ProbeByName(req.Series)
	if !isProbe && !slices.Contains(PlotSeriesNames(), req.Series) {
		return nil, badf("--probe %q: not a recorded series (valid: %s)", req.Series, strings.Join(PlotSeriesNames(), ", "))
	}
	metas := make([]*Run, len(paths))
	for i, p := range paths {
		r, err := record.Open(p)
		if err != nil {
			return nil, err
		}
		metas[i] = &Run{Path: p, Meta: r.Meta()}
		r.Close()
	}
	if err := compatible(metas); err != nil {
		return nil, &BadRequest{err.Error()}
	}
	if err := checkPlotRequest(metas, req, isProbe); err != nil {
		return nil, err
	}
	var reps []*plotRep
	var recorded [probes.NumProbes]bool
	for _, run := range metas {
		rs, err := readPlotRun(run, req, probe, isProbe, &recorded)
		if err != nil {
			return nil, err
		}
		reps = append(reps, rs...)
	}
	fig := plotFigureOf(metas, reps, req, probe, isProbe)
	if len(fig.Panels) == 0 || len(fig.Panels[0].Series) == 0 {
		if !isProbe {
			return nil, badf("--probe %s: none recorded for the selected variants", req.Series)
		}
		var have []string
		for p, ok := range recorded {
			if ok {
				have = append(have, probes.Probe(p).String())
			}
		}
		return nil, badf("--probe %s: no values in %s of the selected variants (recorded there: %s)", req.Series, layerWords(req.Layer), orNone(have))
	}
	return fig, nil
}

func layerWords(l string) string {
	if l == "" {
		return "the first norm layer"
	}
	return "layer " + l
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// checkPlotRequest checks the layer, the variants and, for the metric, that
// the runs measure one.
func checkPlotRequest(runs []*Run, req PlotRequest, isProbe bool) error {
	for _, r := range runs {
		if isProbe && req.Layer != "" && !slices.Contains(r.Meta.Layers, req.Layer) {
			return badf("--layer %q: %s has no such norm layer (layers: %s)", req.Layer, r.Path, strings.Join(r.Meta.Layers, ", "))
		}
		if req.Series == SeriesValMetric && r.Meta.Metric != runs[0].Meta.Metric {
			return badf("--probe val_metric: %s measures %s and %s %s; one axis cannot show both", runs[0].Path, runs[0].Meta.MetricKind().Name(), r.Path, r.Meta.MetricKind().Name())
		}
	}
	var all []string
	for _, r := range runs {
		for _, vm := range r.Meta.Variants {
			if s := specOf(vm); !slices.Contains(all, s) {
				all = append(all, s)
			}
		}
	}
	for _, want := range req.Variants {
		if !slices.ContainsFunc(runs, func(r *Run) bool {
			return slices.ContainsFunc(r.Meta.Variants, func(vm probes.VariantMeta) bool { return wanted(vm, []string{want}) })
		}) {
			return badf("--variants: no run has %q (variants: %s)", want, strings.Join(all, ", "))
		}
	}
	return nil
}

func specOf(vm probes.VariantMeta) string {
	if vm.Spec != "" {
		return vm.Spec
	}
	return vm.Name
}

// wanted: a variant is kept when the list is empty or names its spec or
// its registry name.
func wanted(vm probes.VariantMeta, list []string) bool {
	return len(list) == 0 || slices.Contains(list, specOf(vm)) || slices.Contains(list, vm.Name)
}

// readPlotRun reads one run file's frames once, keeping the requested
// series of the wanted variants; recorded marks the probes that have values
// in the layer (for the error that lists them).
func readPlotRun(run *Run, req PlotRequest, probe probes.Probe, isProbe bool, recorded *[probes.NumProbes]bool) ([]*plotRep, error) {
	rd, err := record.Open(run.Path)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	m := run.Meta
	layer := 0
	if req.Layer != "" {
		layer = slices.Index(m.Layers, req.Layer)
	}
	seeded := slices.ContainsFunc(m.Variants, func(vm probes.VariantMeta) bool { return vm.Seed != 0 })
	reps := make([]*plotRep, len(m.Variants))
	for v, vm := range m.Variants {
		if !wanted(vm, req.Variants) {
			continue
		}
		reps[v] = &plotRep{model: m.Model, spec: specOf(vm), seed: vm.Seed}
		if !seeded {
			reps[v].seed = parseSeed(m.Config["seed"])
		}
	}
	for {
		f, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if f.Variant < 0 || f.Variant >= len(reps) || reps[f.Variant] == nil {
			continue
		}
		pr := reps[f.Variant]
		switch {
		case isProbe:
			if layer < len(f.Layers) {
				lv := &f.Layers[layer]
				for p := range lv {
					recorded[p] = recorded[p] || lv.Has(probes.Probe(p))
				}
				pr.add(f.Step, lv[probe])
			}
		case req.Series == SeriesTrainLoss:
			pr.add(f.Step, f.TrainLoss)
		case req.Series == SeriesSpectrum:
			if f.Spectrum != nil {
				pr.spectrum = f.Spectrum
			}
		default:
			for _, e := range f.Eval {
				if probes.Split(e.Split) == probes.SplitVal {
					pr.evals = append(pr.evals, EvalXY{Step: f.Step, Loss: e.Loss, Metric: e.Metric, Gap: e.Gap()})
				}
			}
		}
	}
	var out []*plotRep
	for _, r := range reps {
		if r != nil {
			out = append(out, r)
		}
	}
	return out, nil
}

func (p *plotRep) add(step int, x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
		return
	}
	p.vals = append(p.vals, float32(x))
	p.steps.add(step)
}
