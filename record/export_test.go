package record

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
)

// smallRun writes a two-variant run where powernorm diverges at step 3.
func smallRun(t *testing.T, closed bool) string {
	t.Helper()
	meta := testMeta(2, 2)
	meta.Variants[1] = probes.VariantMeta{Name: "powernorm", Spec: "powernorm:alpha_fwd=0.9"}
	path := tempRun(t)
	w, err := Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	lv := func(a, b float64) probes.LayerValues {
		x := probes.EmptyLayerValues()
		x[probes.DistMu], x[probes.InStd] = a, b
		return x
	}
	frames := []probes.Frame{
		{Variant: 0, Step: 1, Epoch: 0.25, TrainLoss: 4.5, Layers: []probes.LayerValues{lv(0.5, 1), lv(0.25, 2)}, Elapsed: time.Second, StepsPerSec: 10},
		{Variant: 1, Step: 1, Epoch: 0.25, TrainLoss: 4.25, Layers: []probes.LayerValues{lv(0.125, 1), lv(math.NaN(), math.Inf(1))}},
		{Variant: 0, Step: 2, Epoch: 0.5, TrainLoss: 3.5, Eval: []probes.Eval{{Split: "val", Loss: 3.75, Metric: 2.5, TrainLoss: 3.625}}},
		{Variant: 1, Step: 2, Epoch: 0.5, TrainLoss: 3.25, Eval: []probes.Eval{{Split: "val", Loss: 3.5, Metric: 2.25, TrainLoss: math.NaN()}}},
		{Variant: 1, Step: 3, Epoch: 0.75, TrainLoss: math.NaN(), Status: probes.Diverged,
			Alerts: []probes.Alert{{Kind: probes.AlertDivergence, Step: 3, Layer: -1, Probe: probes.NumProbes, Value: math.NaN(), Msg: "diverged at step 3 (last good 2)"}}},
		{Variant: 0, Step: 3, Epoch: 0.75, TrainLoss: 3, Status: probes.Done,
			Eval:     []probes.Eval{{Split: "val", Loss: 3.125, Metric: 2.0625, TrainLoss: math.NaN()}, {Split: "test", Loss: 3.0625, Metric: 2.03125, TrainLoss: math.NaN()}},
			Spectrum: &probes.Spectrum{Step: 3, Sigma: []float64{1, 0.5}, EffRank: 1.875}},
	}
	for _, f := range frames {
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	if closed {
		if err := w.Close(End{}); err != nil {
			t.Fatal(err)
		}
	} else {
		w.Flush()
		t.Cleanup(func() { w.Close(End{}) })
	}
	return path
}

func TestExportCSV(t *testing.T) {
	b := bytes.NewBuffer(exportFile(t, smallRun(t, true), ExportCSV))
	want := `variant,step,epoch,layer,series,value,text
layernorm:eps=1e-05,1,0.25,,train_loss,4.5,
layernorm:eps=1e-05,1,0.25,,elapsed_s,1,
layernorm:eps=1e-05,1,0.25,,steps_per_sec,10,
layernorm:eps=1e-05,1,0.25,block0.ln,dist_mu,0.5,
layernorm:eps=1e-05,1,0.25,block0.ln,in_std,1,
layernorm:eps=1e-05,1,0.25,block1.ln,dist_mu,0.25,
layernorm:eps=1e-05,1,0.25,block1.ln,in_std,2,
powernorm:alpha_fwd=0.9,1,0.25,,train_loss,4.25,
powernorm:alpha_fwd=0.9,1,0.25,,elapsed_s,0,
powernorm:alpha_fwd=0.9,1,0.25,,steps_per_sec,0,
powernorm:alpha_fwd=0.9,1,0.25,block0.ln,dist_mu,0.125,
powernorm:alpha_fwd=0.9,1,0.25,block0.ln,in_std,1,
powernorm:alpha_fwd=0.9,1,0.25,block1.ln,in_std,+Inf,
layernorm:eps=1e-05,2,0.5,,train_loss,3.5,
layernorm:eps=1e-05,2,0.5,,elapsed_s,0,
layernorm:eps=1e-05,2,0.5,,steps_per_sec,0,
layernorm:eps=1e-05,2,0.5,,val_loss,3.75,
layernorm:eps=1e-05,2,0.5,,val_bpc,2.5,
layernorm:eps=1e-05,2,0.5,,val_train_loss,3.625,
powernorm:alpha_fwd=0.9,2,0.5,,train_loss,3.25,
powernorm:alpha_fwd=0.9,2,0.5,,elapsed_s,0,
powernorm:alpha_fwd=0.9,2,0.5,,steps_per_sec,0,
powernorm:alpha_fwd=0.9,2,0.5,,val_loss,3.5,
powernorm:alpha_fwd=0.9,2,0.5,,val_bpc,2.25,
powernorm:alpha_fwd=0.9,3,0.75,,train_loss,NaN,
powernorm:alpha_fwd=0.9,3,0.75,,elapsed_s,0,
powernorm:alpha_fwd=0.9,3,0.75,,steps_per_sec,0,
powernorm:alpha_fwd=0.9,3,0.75,,status,,diverged
powernorm:alpha_fwd=0.9,3,0.75,,alert_divergence,NaN,diverged at step 3 (last good 2)
powernorm:alpha_fwd=0.9,3,0.75,,alert_divergence.threshold,0,
layernorm:eps=1e-05,3,0.75,,train_loss,3,
layernorm:eps=1e-05,3,0.75,,elapsed_s,0,
layernorm:eps=1e-05,3,0.75,,steps_per_sec,0,
layernorm:eps=1e-05,3,0.75,,status,,done
layernorm:eps=1e-05,3,0.75,,val_loss,3.125,
layernorm:eps=1e-05,3,0.75,,val_bpc,2.0625,
layernorm:eps=1e-05,3,0.75,,test_loss,3.0625,
layernorm:eps=1e-05,3,0.75,,test_bpc,2.03125,
layernorm:eps=1e-05,3,0.75,,spectrum_step,3,
layernorm:eps=1e-05,3,0.75,,spectrum_eff_rank,1.875,
layernorm:eps=1e-05,3,0.75,,spectrum_sigma_1,1,
layernorm:eps=1e-05,3,0.75,,spectrum_sigma_2,0.5,
`
	if b.String() != want {
		t.Fatalf("CSV:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestExportJSONL(t *testing.T) {
	b := bytes.NewBuffer(exportFile(t, smallRun(t, true), ExportJSONL))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6", len(lines))
	}
	var objs []map[string]any
	for i, l := range lines {
		var o map[string]any
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i, err, l)
		}
		objs = append(objs, o)
	}
	layers := objs[0]["layers"].(map[string]any)
	if got := layers["block1.ln"].(map[string]any)["dist_mu"]; got != 0.25 {
		t.Fatalf("line 0 block1.ln dist_mu = %v", got)
	}
	if got := objs[1]["layers"].(map[string]any)["block1.ln"].(map[string]any); got["in_std"] != "+Inf" || got["dist_mu"] != nil {
		t.Fatalf("line 1 block1.ln = %v (want in_std +Inf, dist_mu absent)", got)
	}
	if objs[4]["status"] != "diverged" || objs[4]["train_loss"] != nil {
		t.Fatalf("line 4 = %v", objs[4])
	}
	if a := objs[4]["alerts"].([]any)[0].(map[string]any); a["kind"] != "divergence" || a["msg"] != "diverged at step 3 (last good 2)" {
		t.Fatalf("alert = %v", a)
	}
	if s := objs[5]["spectrum"].(map[string]any); s["eff_rank"] != 1.875 || len(s["sigma"].([]any)) != 2 {
		t.Fatalf("spectrum = %v", s)
	}
	if e := objs[2]["eval"].([]any)[0].(map[string]any); e["train_loss"] != 3.625 || e["loss"] != 3.75 {
		t.Fatalf("eval = %v", e)
	}
	if e := objs[3]["eval"].([]any)[0].(map[string]any); e["train_loss"] != nil {
		t.Fatalf("eval with unknown train loss = %v", e)
	}
	if objs[0]["elapsed_s"] != 1.0 || objs[0]["steps_per_sec"] != 10.0 || objs[0]["variant"] != "layernorm:eps=1e-05" {
		t.Fatalf("line 0 = %v", objs[0])
	}
}

func TestExportMarkdown(t *testing.T) {
	for _, closed := range []bool{true, false} {
		b := bytes.NewBuffer(exportFile(t, smallRun(t, closed), ExportMarkdown))
		head := "Run test-run: transformer on opticks; bpc (bits per character), lower is better."
		if !closed {
			head += " The run file has no end record (writing): values are the last ones recorded."
		}
		want := head + `

| Variant | Steps | Val bpc | Test bpc |
|---|---:|---:|---:|
| layernorm:eps=1e-05 | 3 | 2.062 | 2.031 |
| powernorm:alpha_fwd=0.9 | 3 | Diverge | Diverge |
`
		if b.String() != want {
			t.Fatalf("closed=%v markdown:\n%s\nwant:\n%s", closed, b.String(), want)
		}
	}
}

func TestEndRecordFilledFromFrames(t *testing.T) {
	r, err := Open(smallRun(t, true))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	end, ok := r.End() // known at Open through the trailer
	if !ok || end.Status != StatusCompleted || end.Diverged[1] != 3 || len(end.Diverged) != 1 {
		t.Fatalf("end = %+v, %v", end, ok)
	}
	if f := end.Final[0]; len(f) != 2 || f[0].Split != "val" || f[0].Metric != 2.0625 || f[1].Split != "test" {
		t.Fatalf("final evals of variant 0 = %+v", f)
	}
}
