package report

import (
	"encoding/json"
	"io"

	"github.com/normtop/normtop/probes"
)

type jagg struct {
	Mean    probes.JSONFloat `json:"mean"`
	SD      probes.JSONFloat `json:"sd"`
	N       int              `json:"n"`
	Missing int              `json:"missing,omitempty"`
}

func toJ(a probes.MeanSD) jagg {
	return jagg{probes.JSONFloat(a.Mean), probes.JSONFloat(a.SD), a.N, a.Missing}
}

type jsonReport struct {
	Files    []jsonFile    `json:"files"`
	Warmup   []string      `json:"warmup"`
	Variants []jsonVariant `json:"variants"`
	Findings []Finding     `json:"findings"`
}

type jsonFile struct {
	Path   string `json:"path"`
	RunID  string `json:"run_id"`
	Model  string `json:"model"`
	Data   string `json:"data"`
	Metric string `json:"metric"`
	Steps  int    `json:"steps"`
	Status string `json:"status"`
	Note   string `json:"note,omitempty"`
}

type jsonVariant struct {
	Model        string           `json:"model"`
	Spec         string           `json:"spec"`
	Name         string           `json:"name"`
	Seeds        []int64          `json:"seeds"`
	Diverged     int              `json:"diverged"`
	WarmupSteps  int              `json:"warmup_steps"`
	WarmupRate   probes.JSONFloat `json:"warmup_rate"`
	WarmupProbes []string         `json:"warmup_probes"`
	FinalVal     jagg             `json:"final_val_metric"`
	BestVal      jagg             `json:"best_val_metric"`
	TrainLoss    jagg             `json:"train_loss"`
	ValLoss      jagg             `json:"val_loss"`
	Gap          jagg             `json:"gap"`
	GapTrend     jagg             `json:"gap_trend_per_1k_steps"`
	Spectrum     *jsonSpec        `json:"spectrum,omitempty"`
	Layers       []jsonLayer      `json:"layers"`
}

type jsonSpec struct {
	Step         int  `json:"step"`
	D            int  `json:"d"`
	EffRank      jagg `json:"eff_rank"`
	SigmaQuarter jagg `json:"sigma_d4"`
	SigmaHalf    jagg `json:"sigma_d2"`
	SigmaThree   jagg `json:"sigma_3d4"`
	SigmaMean    jagg `json:"sigma_mean"`
	// RankMove: the largest move of the effective rank over the last
	// quarter among the seeds (> 0.01: still moving); null when unknown.
	RankMove probes.JSONFloat `json:"eff_rank_move_last_quarter"`
}

type jsonLayer struct {
	Layer    string               `json:"layer"`
	Probes   map[string]jsonProbe `json:"probes"`
	Theorem1 *jsonTheorem         `json:"theorem1,omitempty"`
}

type jsonProbe struct {
	N             int  `json:"n"`
	Skipped       int  `json:"skipped_startup"`
	Window        jagg `json:"startup_window_steps"`
	Median        jagg `json:"median"`
	P99Med        jagg `json:"p99_over_median"`
	MaxMed        jagg `json:"max_over_median"`
	OutliersPer1k jagg `json:"outliers_per_1k_steps"`
	Persistence   jagg `json:"outlier_persistence"`
	Trend         jagg `json:"trend"`
}

type jsonTheorem struct {
	Claim     string `json:"claim"`
	Measured  bool   `json:"measured"`
	MeanRatio jagg   `json:"max_abs_dx_mean_over_sd"`
	VarRatio  jagg   `json:"dx_var_over_dy_var"`
	Verdict   string `json:"check"`
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	out := jsonReport{Warmup: r.warmupLines(), Variants: []jsonVariant{}}
	for _, f := range r.Findings {
		if f.Numbers == nil {
			f.Numbers = []string{}
		}
		out.Findings = append(out.Findings, f)
	}
	for _, run := range r.Runs {
		m := run.Meta
		out.Files = append(out.Files, jsonFile{Path: run.Path, RunID: m.RunID, Model: m.Model, Data: m.Data,
			Metric: m.Metric, Steps: run.steps(), Status: run.status(), Note: run.note()})
	}
	for _, g := range r.Groups {
		v := jsonVariant{Model: g.Model, Spec: g.Spec, Name: g.Name, Seeds: g.Seeds(), Diverged: g.Diverged,
			WarmupSteps: g.Warmup.Steps, WarmupRate: probes.JSONFloat(g.Warmup.Rate), WarmupProbes: []string{},
			FinalVal: toJ(g.FinalVal), BestVal: toJ(g.BestVal), TrainLoss: toJ(g.FinalTrain), ValLoss: toJ(g.FinalValLoss),
			Gap: toJ(g.Gap), GapTrend: toJ(g.GapTrend), Layers: []jsonLayer{}}
		for _, p := range g.Warmup.Probes {
			v.WarmupProbes = append(v.WarmupProbes, p.String())
		}
		if g.EffRank.N > 0 {
			v.Spectrum = &jsonSpec{Step: g.SpectrumStep, D: g.D, EffRank: toJ(g.EffRank), SigmaQuarter: toJ(g.SigmaQuarter), SigmaHalf: toJ(g.SigmaHalf),
				SigmaThree: toJ(g.SigmaThreeQuarter), SigmaMean: toJ(g.SigmaMean), RankMove: probes.JSONFloat(g.RankMove)}
		}
		for l, name := range g.Layers {
			jl := jsonLayer{Layer: name, Probes: map[string]jsonProbe{}}
			for p := probes.Probe(0); p < probes.NumProbes; p++ {
				pa := g.Probes[l][p]
				if pa.N == 0 {
					continue
				}
				jl.Probes[p.String()] = jsonProbe{N: pa.N, Skipped: pa.Skipped, Window: toJ(pa.Window), Median: toJ(pa.Median), P99Med: toJ(pa.P99Med),
					MaxMed: toJ(pa.MaxMed), OutliersPer1k: toJ(pa.OutliersPer1k), Persistence: toJ(pa.Persistence), Trend: toJ(pa.Trend)}
			}
			if c := g.Theorem[l]; c.Claim != "" {
				jl.Theorem1 = &jsonTheorem{Claim: c.Claim, Measured: c.Measured, MeanRatio: toJ(c.MeanRatio), VarRatio: toJ(c.VarRatio), Verdict: c.Verdict}
			}
			v.Layers = append(v.Layers, jl)
		}
		out.Variants = append(out.Variants, v)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
