package headless

import (
	"encoding/json"

	"github.com/normtop/normtop/probes"
)

// JSON Lines objects, one per line, told apart by "type":
//
//	{"type":"start", run metadata}
//	{"type":"step","step":200,...,"variants":[{one object per variant with a line at this step}]}
//	{"type":"end","variants":[{final state of every variant seen}]}
//
// Numbers follow probes.JSONFloat, the rule of every normtop JSON output:
// a value not measured (no evaluation yet) is null, ±Inf is "+Inf"/"-Inf".

type jsonStart struct {
	Type     string   `json:"type"`
	RunID    string   `json:"run_id,omitempty"`
	Model    string   `json:"model"`
	Data     string   `json:"data"`
	Metric   string   `json:"metric"`
	Unit     string   `json:"metric_unit,omitempty"` // "%" for accuracy: val_metric, test_metric are percentages
	Variants []string `json:"variants"`
	Layers   []string `json:"layers"`
	Every    int      `json:"log_every"`
	// InputVar is the variance of the first block's input at the first
	// batch (the run header's input_var; token models only).
	InputVar string `json:"input_var,omitempty"`
}

type jsonAlert struct {
	Kind  string           `json:"kind"`
	Step  int              `json:"step"`
	Layer string           `json:"layer,omitempty"`
	Probe string           `json:"probe,omitempty"`
	Value probes.JSONFloat `json:"value"`
	Msg   string           `json:"msg,omitempty"`
}

type jsonCell struct {
	Variant     string           `json:"variant"`
	Status      string           `json:"status"`
	Epoch       probes.JSONFloat `json:"epoch"`
	TrainLoss   probes.JSONFloat `json:"train_loss"`
	ValLoss     probes.JSONFloat `json:"val_loss"`
	ValMetric   probes.JSONFloat `json:"val_metric"`
	StepsPerSec probes.JSONFloat `json:"steps_per_sec"`
	ElapsedSec  probes.JSONFloat `json:"elapsed_s"`
	Alerts      []jsonAlert      `json:"alerts,omitempty"`
}

type jsonRow struct {
	Type     string     `json:"type"`
	Step     int        `json:"step"`
	Variants []jsonCell `json:"variants"`
}

type jsonFinal struct {
	Variant    string           `json:"variant"`
	Status     string           `json:"status"`
	Step       int              `json:"step"`
	TrainLoss  probes.JSONFloat `json:"train_loss"`
	ValLoss    probes.JSONFloat `json:"val_loss"`
	ValMetric  probes.JSONFloat `json:"val_metric"`
	TestLoss   probes.JSONFloat `json:"test_loss"`
	TestMetric probes.JSONFloat `json:"test_metric"`
	Alerts     []jsonAlert      `json:"alerts,omitempty"`
}

type jsonEnd struct {
	Type     string      `json:"type"`
	Metric   string      `json:"metric"`
	Variants []jsonFinal `json:"variants"`
}

func (p *Printer) jsonHeader() {
	layers := p.meta.Layers
	if layers == nil {
		layers = []string{}
	}
	p.writeJSON(jsonStart{
		Type: "start", RunID: p.meta.RunID, Model: p.meta.Model, Data: p.meta.Data,
		Metric: p.meta.Metric, Unit: p.meta.MetricKind().Unit(), Variants: p.labels, Layers: layers, Every: p.opt.Every,
		InputVar: p.meta.Config["input_var"],
	})
}

func (p *Printer) jsonRow(step int, row []cell) {
	out := jsonRow{Type: "step", Step: step, Variants: []jsonCell{}}
	for i, c := range row {
		if !c.has {
			continue
		}
		out.Variants = append(out.Variants, jsonCell{
			Variant: p.labels[i], Status: c.status.String(), Epoch: probes.JSONFloat(c.epoch),
			TrainLoss: probes.JSONFloat(c.trainLoss), ValLoss: probes.JSONFloat(c.val.Loss), ValMetric: p.jsonMetric(c.val.Metric),
			StepsPerSec: probes.JSONFloat(c.sps), ElapsedSec: probes.JSONFloat(c.elapsed.Seconds()),
			Alerts: p.jsonAlerts(c.alerts),
		})
	}
	p.writeJSON(out)
}

func (p *Printer) jsonSummary() {
	out := jsonEnd{Type: "end", Metric: p.meta.Metric, Variants: []jsonFinal{}}
	for i, v := range p.standings.Variants {
		if !v.Seen {
			continue
		}
		val, test := evalOrNone(v.Val), evalOrNone(v.Test)
		out.Variants = append(out.Variants, jsonFinal{
			Variant: p.labels[i], Status: v.Status.String(), Step: v.Step,
			TrainLoss: probes.JSONFloat(v.Train), ValLoss: probes.JSONFloat(val.Loss), ValMetric: p.jsonMetric(val.Metric),
			TestLoss: probes.JSONFloat(test.Loss), TestMetric: p.jsonMetric(test.Metric),
			Alerts: p.jsonAlerts(p.variants[i].pending),
		})
	}
	p.writeJSON(out)
}

// jsonMetric is a metric in the units of every output (accuracy in percent).
func (p *Printer) jsonMetric(x float64) probes.JSONFloat {
	return probes.JSONFloat(p.meta.MetricKind().Value(x))
}

func (p *Printer) jsonAlerts(as []probes.Alert) []jsonAlert {
	var out []jsonAlert
	for _, a := range as {
		ja := jsonAlert{Kind: a.Kind.String(), Step: a.Step, Value: probes.JSONFloat(a.Value), Msg: a.Msg}
		if a.Layer >= 0 && a.Layer < len(p.meta.Layers) {
			ja.Layer = p.meta.Layers[a.Layer]
		}
		if a.Kind == probes.AlertOutlier && a.Probe < probes.NumProbes {
			ja.Probe = a.Probe.String()
		}
		out = append(out, ja)
	}
	return out
}

func (p *Printer) writeJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		if p.err == nil {
			p.err = err
		}
		return
	}
	p.write(string(b) + "\n")
}
