package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/normtop/normtop/probes"
)

// The figure analogue of each finding, drawn from the runs with the same
// choice of groups and layer the finding judged (the pick functions of
// findings*.go): PowerNorm's Figs. 2-4 (first-layer distances and gradient
// norms over training, Transformer beside CNN, σ² beside ψ²), Fig. 6 (the
// normalized singular values) and Xu et al.'s train/validation curves;
// (vi) in figure_placement.go. A finding this file does not know (a claim
// added later, and (vii), whose convergence the loss curves show) gets the
// loss curves of the model it was judged on.

// FindingFigure is the figure of finding f of the report.
func (r *Report) FindingFigure(f Finding) *Figure {
	if f.Verdict == NotMeasurable {
		// A claim these runs cannot judge gets no figure: another claim's
		// curves under its heading would read as its evidence.
		return &Figure{Title: "(" + f.ID + ")", Empty: "these runs cannot judge this claim, so nothing is drawn for it"}
	}
	models := modelOrder(r.Groups)
	switch f.ID {
	case "i":
		return r.pairLossFigure(f, models, "detachnorm", "layernorm-simple")
	case "ii":
		return r.tailsFigure()
	case "iii":
		return r.psi2Figure(models)
	case "iv":
		return r.spectrumFigure(models)
	case "v":
		return r.overfitFigure(models)
	case "vii":
		if fig := r.lstmFigure(); fig.Empty == "" {
			return fig
		}
	case "vi-a", "vi-b":
		fig := r.initGradientsFigure()
		if f.ID == "vi-b" {
			fig = r.warmupFigure()
		}
		if fig.Empty == "" {
			return fig
		}
	}
	return r.fallbackFigure(f)
}

// colorOf is a group's palette index: its place in the report, so that a
// variant has one colour on the whole page.
func (r *Report) colorOf(g *Group) int {
	for i, o := range r.Groups {
		if o == g {
			return i
		}
	}
	return 0
}

// LossFigure is one model's train and validation curves: the train loss
// (each seed faint, the smoothed mean over seeds, its ± sd band) with the
// validation loss as markers, beside the validation metric.
func (r *Report) LossFigure(model string, gs []*Group) *Figure {
	f := &Figure{Title: "Loss curves: " + model, Cols: 2,
		Caption: "Train loss: each seed's recorded values faint, the centred moving mean over n/50 steps as a line (mean over seeds, band ± 1 sd over seeds); validation loss as markers (mean over seeds, bars ± 1 sd). Right: the validation metric at each evaluation."}
	if len(gs) == 0 {
		f.Empty = "no variant of " + model + " in these runs"
		return f
	}
	loss := Panel{Title: "train (lines) and validation (markers) loss", XLabel: "step", YLabel: "loss"}
	metric := Panel{Title: "validation " + gs[0].Metric.Name(), XLabel: "step", YLabel: gs[0].Metric.Name() + unitSuffix(gs[0].Metric)}
	for _, g := range gs {
		c := r.colorOf(g)
		loss.Series = append(loss.Series, trainSeries(g, c, r.MultiModel)...)
		loss.Series = append(loss.Series, evalSeries(g, c, "", func(e EvalXY) float64 { return e.Loss })...)
		metric.Series = append(metric.Series, evalSeries(g, c, groupLabel(g, r.MultiModel), func(e EvalXY) float64 { return g.Metric.Value(e.Metric) })...)
	}
	f.Panels = []Panel{loss, metric}
	return f
}

// ModelGroups are the report's groups of one model, in report order.
func (r *Report) ModelGroups(model string) []*Group {
	var out []*Group
	for _, g := range r.Groups {
		if g.Model == model {
			out = append(out, g)
		}
	}
	return out
}

// Models are the report's models, the transformer first.
func (r *Report) Models() []string { return modelOrder(r.Groups) }

func (r *Report) pairLossFigure(f Finding, models []string, a, b string) *Figure {
	for _, m := range models {
		ga, gb := pick(r.Groups, m, a), pick(r.Groups, m, b)
		if ga != nil && gb != nil {
			fig := r.LossFigure(m, []*Group{ga, gb})
			fig.Title = "(" + f.ID + ") " + a + " vs " + b + ", " + m
			return fig
		}
	}
	return &Figure{Title: "(" + f.ID + ")", Empty: "the runs lack " + a + " or " + b + " in one model: nothing to draw"}
}

func (r *Report) overfitFigure(models []string) *Figure {
	for _, m := range models {
		ln := pick(r.Groups, m, "layernorm")
		if ln == nil {
			continue
		}
		gs := []*Group{ln}
		for _, name := range []string{"layernorm-simple", "adanorm"} {
			if o := pick(r.Groups, m, name); o != nil {
				gs = append(gs, o)
			}
		}
		if len(gs) == 1 {
			continue
		}
		fig := r.LossFigure(m, gs)
		fig.Title = "(v) layernorm's generalization gap, " + m
		gap := Panel{Title: "generalization gap (validation − smoothed train loss)", XLabel: "step", YLabel: "gap"}
		for _, g := range gs {
			gap.Series = append(gap.Series, evalSeries(g, r.colorOf(g), groupLabel(g, r.MultiModel), func(e EvalXY) float64 { return e.Gap })...)
		}
		fig.Panels[1] = gap
		fig.Caption = strings.Replace(fig.Caption, "Right: the validation metric at each evaluation.", "Right: the generalization gap at each evaluation (the claim's quantity; its last value is judged).", 1)
		return fig
	}
	return &Figure{Title: "(v)", Empty: "the runs lack layernorm with layernorm-simple or adanorm in one model: nothing to draw"}
}

// probeGrid draws probes (rows) of the first norm layer of sides (columns),
// each row on one y range (log for magnitudes), with each side's start-up
// window as a dashed line.
func (r *Report) probeGrid(fig *Figure, sides []side, rows [][]probes.Probe) {
	fig.Cols = len(sides)
	for _, row := range rows {
		ps := make([]*Panel, 0, len(sides))
		for i, s := range sides {
			p := row[i]
			pa := s.probe(p)
			panel := Panel{Title: s.label() + " " + s.layerName() + ": " + p.String(), XLabel: "step", YLabel: p.String(), LogY: p.Magnitude()}
			panel.Series = probeSeries(s.g, p, r.colorOf(s.g), r.MultiModel)
			if w := pa.Window.Mean; pa.Skipped > 0 && !math.IsNaN(w) {
				panel.VLines = []float64{w}
			}
			panel.logSafe()
			ps = append(ps, &panel)
		}
		shareY(ps)
		for _, p := range ps {
			fig.Panels = append(fig.Panels, *p)
		}
	}
}

func (r *Report) tailsFigure() *Figure {
	fig := &Figure{Title: "(ii) first-layer batch statistics over training: Transformer beside CNN (PowerNorm Figs. 2-3)",
		Caption: "The first norm layer of each network: the relative distances of the batch statistics to the running ones (rdist_var, rdist_mu) and the gradient norms g_mu, g_var at every recorded step, one line per seed (thinned to the first, lowest, highest and last value of " + fmt.Sprint(CurveBuckets) + " runs of steps on long runs, so spikes stay). Each row shares its (log) y axis; the dashed line ends the start-up window the summaries skip (mean over seeds)."}
	tg := pickVariant(r.Groups, []string{"transformer"}, "batchnorm", layerScaled)
	cg := pickVariant(r.Groups, []string{"resnet", "cnn"}, "batchnorm", plainFirst)
	var sides []side
	for _, g := range []*Group{tg, cg} {
		if g != nil {
			sides = append(sides, side{g, 0})
		}
	}
	if len(sides) == 0 {
		fig.Empty = "the runs have no batchnorm variant: nothing to draw"
		return fig
	}
	if len(sides) == 1 {
		fig.Caption += " Only one side is in these runs: the claim needs both (normtop report T.ntr R.ntr)."
	}
	var rows [][]probes.Probe
	for _, p := range []probes.Probe{probes.RdistVar, probes.RdistMu, probes.GMu, probes.GVar} {
		row := make([]probes.Probe, len(sides))
		for i := range row {
			row[i] = p
		}
		rows = append(rows, row)
	}
	r.probeGrid(fig, sides, rows)
	return fig
}

func (r *Report) psi2Figure(models []string) *Figure {
	fig := &Figure{Title: "(iii) σ² beside ψ² in the first norm layer (PowerNorm Fig. 4)",
		Caption: "batchnorm's rdist_var and g_var (left) beside pn-v's rdist_psi2 and g_psi2 (right), first norm layer, every recorded step, one line per seed (thinned so that spikes stay). Each row shares its log y axis; the dashed line ends the start-up window (mean over seeds)."}
	for _, m := range models {
		bg, pg := psi2Pair(r.Groups, m)
		if bg == nil {
			continue
		}
		fig.Title += ", " + m
		r.probeGrid(fig, []side{{bg, 0}, {pg, 0}}, [][]probes.Probe{
			{probes.RdistVar, probes.RdistPsi2},
			{probes.GVar, probes.GPsi2},
		})
		return fig
	}
	fig.Empty = "the runs lack batchnorm and pn-v in one model: nothing to draw"
	return fig
}

func (r *Report) spectrumFigure(models []string) *Figure {
	fig := &Figure{Title: "(iv) normalized singular values of the embedding (PowerNorm Fig. 6)", Cols: 1,
		Caption: "σ_k/σ_1 of the word-embedding matrix against k, the last spectrum of each seed: the mean over seeds as a line, ± 1 sd as a band; dashed: k = d/4, d/2, 3d/4, where the claim is judged."}
	for _, m := range models {
		ln := pick(r.Groups, m, "layernorm")
		pn := pick(r.Groups, m, "powernorm")
		if pn == nil {
			pn = pick(r.Groups, m, "pn-v")
		}
		if ln == nil || pn == nil {
			continue
		}
		fig.Title += ", " + m
		panel := Panel{Title: pn.Spec + " vs " + ln.Spec, XLabel: "k", YLabel: "σ_k / σ_1"}
		for _, g := range []*Group{pn, ln} {
			panel.Series = append(panel.Series, spectrumSeries(g, r.colorOf(g), r.MultiModel)...)
		}
		if len(panel.Series) == 0 {
			fig.Empty = "no embedding spectrum recorded (" + m + " has no embedding matrix, or the spectrum probe was off)"
			return fig
		}
		if d := pn.D; d > 0 {
			panel.VLines = []float64{float64(d) / 4, float64(d) / 2, 3 * float64(d) / 4}
		}
		fig.Panels = []Panel{panel}
		return fig
	}
	fig.Empty = "the runs lack layernorm and powernorm (or pn-v) in one model: nothing to draw"
	return fig
}

// spectrumSeries is a group's last spectrum per seed: σ_k/σ_1 against k
// (1-based), the mean over seeds with a ± sd band.
func spectrumSeries(g *Group, color int, multiModel bool) []Series {
	var curves [][]XY
	for _, r := range g.Reps {
		if r.Spectrum != nil {
			curves = append(curves, spectrumXY(r.Spectrum))
		}
	}
	return meanBand(groupLabel(g, multiModel), color, curves)
}

// spectrumXY is a spectrum as (k, σ_k/σ_1), k from 1.
func spectrumXY(s *probes.Spectrum) []XY {
	c := make([]XY, len(s.Sigma))
	for k, v := range s.Sigma {
		c[k] = XY{float64(k + 1), v}
	}
	return c
}

// fallbackFigure: the loss curves of the model a finding was judged on
// (its Model's first word), or of the first model.
func (r *Report) fallbackFigure(f Finding) *Figure {
	models := r.Models()
	m, _, _ := strings.Cut(f.Model, " ")
	m = strings.TrimSuffix(m, ":")
	if m == "" || len(r.ModelGroups(m)) == 0 {
		if len(models) == 0 {
			return &Figure{Title: "(" + f.ID + ")", Empty: "no runs: nothing to draw"}
		}
		m = models[0]
	}
	fig := r.LossFigure(m, r.ModelGroups(m))
	fig.Title = "(" + f.ID + ") loss curves, " + m
	return fig
}
