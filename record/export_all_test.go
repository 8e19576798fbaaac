package record

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
)

// richRun writes frames that use every field a Frame has, on an accuracy
// run, and returns the path and the frames.
func richRun(t *testing.T) (string, []probes.Frame) {
	t.Helper()
	meta := testMeta(2, 2)
	meta.Metric = "accuracy"
	lv := func(a, b float64) probes.LayerValues {
		x := probes.EmptyLayerValues()
		x[probes.DistMu], x[probes.GVar] = a, b
		return x
	}
	frames := []probes.Frame{
		{Variant: 0, Step: 1, Epoch: 0.125, TrainLoss: 2.5, Layers: []probes.LayerValues{lv(0.5, 1), lv(0.25, math.Inf(1))},
			Elapsed: 1500 * time.Millisecond, StepsPerSec: 12.5},
		{Variant: 1, Step: 1, Epoch: 0.125, TrainLoss: 2.25, Elapsed: 1600 * time.Millisecond, StepsPerSec: 11,
			Alerts: []probes.Alert{{Kind: probes.AlertOutlier, Step: 1, Layer: 1, Probe: probes.DistMu, Value: 3.5, Threshold: 0.25,
				Msg: "block1.ln dist_mu 3.5, over 10× its median 0.025"}}},
		{Variant: 0, Step: 2, Epoch: 0.25, TrainLoss: 2, Elapsed: 2 * time.Second, StepsPerSec: 1,
			Eval:     []probes.Eval{{Split: "val", Loss: 1.75, Metric: 4871.0 / 5000, TrainLoss: 2.125}},
			Spectrum: &probes.Spectrum{Step: 2, Sigma: []float64{1, 0.5, 0.125}, EffRank: 2.25}},
		{Variant: 1, Step: 2, Epoch: 0.25, TrainLoss: math.NaN(), Status: probes.Diverged, Elapsed: 2100 * time.Millisecond,
			Alerts: []probes.Alert{{Kind: probes.AlertDivergence, Step: 2, Layer: -1, Probe: probes.NumProbes, Value: math.NaN(),
				Msg: "diverged at step 2 (last good 1): train loss NaN"}}},
		{Variant: 0, Step: 3, Epoch: 0.375, TrainLoss: 1.5, Status: probes.Done, Elapsed: 3 * time.Second, StepsPerSec: 1,
			Eval: []probes.Eval{{Split: "val", Loss: 1.5, Metric: 0.97, TrainLoss: math.NaN()}, {Split: "test", Loss: 1.625, Metric: 0.96, TrainLoss: math.NaN()}}},
	}
	path := tempRun(t)
	w, err := Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(End{}); err != nil {
		t.Fatal(err)
	}
	return path, frames
}

// TestCSVHoldsEverything rebuilds every Frame from the CSV export alone and
// compares it with what was written: train loss, timing, status, every
// probe, evaluations (accuracy in percent), the spectrum's σ_i and
// effective rank, and every alert with its message and threshold.
func TestCSVHoldsEverything(t *testing.T) {
	path, frames := richRun(t)
	r, err := Open(path) // for the header the CSV's rows are read against
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows, err := csv.NewReader(bytes.NewReader(exportFile(t, path, ExportCSV))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "variant,step,epoch,layer,series,value,text" {
		t.Fatalf("header %v", rows[0])
	}
	c := newCSVFrames(t, r.Meta())
	for _, row := range rows[1:] {
		c.add(row)
	}
	got := c.frames
	if len(got) != len(frames) {
		t.Fatalf("%d frames from the CSV, want %d", len(got), len(frames))
	}
	for i := range frames {
		want := frames[i]
		for k := range want.Eval { // percent and back: equal to 1e-15
			if e := math.Abs(got[i].Eval[k].Metric - want.Eval[k].Metric); e < 1e-15 {
				got[i].Eval[k].Metric = want.Eval[k].Metric
			}
		}
		if !sameFrame(got[i], want) || got[i].Elapsed != want.Elapsed || got[i].StepsPerSec != want.StepsPerSec {
			t.Errorf("frame %d from the CSV:\n%+v\nwant\n%+v", i, got[i], want)
		}
	}
}

// csvFrames rebuilds Frames from ExportCSV's rows (of a two-variant run),
// one series per row.
type csvFrames struct {
	t        *testing.T
	m        probes.RunMeta
	layerIdx map[string]int
	probeIdx map[string]probes.Probe
	kindIdx  map[string]probes.AlertKind
	frames   []probes.Frame
}

func newCSVFrames(t *testing.T, m probes.RunMeta) *csvFrames {
	c := &csvFrames{t: t, m: m, layerIdx: map[string]int{}, probeIdx: map[string]probes.Probe{}, kindIdx: map[string]probes.AlertKind{}}
	for i, l := range m.Layers {
		c.layerIdx[l] = i
	}
	for p := probes.Probe(0); p < probes.NumProbes; p++ {
		c.probeIdx[p.String()] = p
	}
	for k := probes.AlertKind(0); k < probes.NumAlertKinds; k++ {
		c.kindIdx[k.String()] = k
	}
	return c
}

func (c *csvFrames) num(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		c.t.Fatalf("value %q: %v", s, err)
	}
	return v
}

// add takes one row: a new Frame when the variant or step changes, then
// the row's series into it.
func (c *csvFrames) add(row []string) {
	variant, step, layer, series, value, text := row[0], row[1], row[3], row[4], row[5], row[6]
	v := 0
	if variant != c.m.VariantLabel(0) {
		v = 1
	}
	st, _ := strconv.Atoi(step)
	if n := len(c.frames); n == 0 || c.frames[n-1].Variant != v || c.frames[n-1].Step != st {
		c.frames = append(c.frames, probes.Frame{Variant: v, Step: st, Epoch: c.num(row[2])})
	}
	f := &c.frames[len(c.frames)-1]
	switch {
	case c.runSeries(f, series, value, text):
	case strings.HasPrefix(series, "alert_"):
		c.alert(f, st, layer, strings.TrimPrefix(series, "alert_"), value, text)
	case strings.HasSuffix(series, "_train_loss"):
		evalOf(f, strings.TrimSuffix(series, "_train_loss")).TrainLoss = c.num(value)
	case strings.HasSuffix(series, "_loss"):
		evalOf(f, strings.TrimSuffix(series, "_loss")).Loss = c.num(value)
	case strings.HasSuffix(series, "_accuracy"):
		evalOf(f, strings.TrimSuffix(series, "_accuracy")).Metric = c.num(value) / 100
	case layer != "":
		if f.Layers == nil {
			f.Layers = []probes.LayerValues{probes.EmptyLayerValues(), probes.EmptyLayerValues()}
		}
		p, ok := c.probeIdx[series]
		if !ok {
			c.t.Fatalf("unknown series %q", series)
		}
		f.Layers[c.layerIdx[layer]][p] = c.num(value)
	default:
		c.t.Fatalf("unknown series %q", series)
	}
}

// runSeries takes a run-level series (train loss, timing, status,
// spectrum) into f; false for any other series.
func (c *csvFrames) runSeries(f *probes.Frame, series, value, text string) bool {
	switch {
	case series == "train_loss":
		f.TrainLoss = c.num(value)
	case series == "elapsed_s":
		f.Elapsed = time.Duration(math.Round(c.num(value) * 1e9))
	case series == "steps_per_sec":
		f.StepsPerSec = c.num(value)
	case series == "status":
		for s := probes.Running; s <= probes.Stopped; s++ {
			if s.String() == text {
				f.Status = s
			}
		}
	case series == "spectrum_step":
		f.Spectrum = &probes.Spectrum{Step: int(c.num(value))}
	case series == "spectrum_eff_rank":
		f.Spectrum.EffRank = c.num(value)
	case strings.HasPrefix(series, "spectrum_sigma_"):
		f.Spectrum.Sigma = append(f.Spectrum.Sigma, c.num(value))
	default:
		return false
	}
	return true
}

// alert takes an "alert_<kind>[.<probe>][.threshold]" row into f.
func (c *csvFrames) alert(f *probes.Frame, step int, layer, name, value, text string) {
	parts := strings.Split(name, ".")
	if parts[len(parts)-1] == "threshold" {
		f.Alerts[len(f.Alerts)-1].Threshold = c.num(value)
		return
	}
	a := probes.Alert{Kind: c.kindIdx[parts[0]], Step: step, Layer: -1, Probe: probes.NumProbes, Value: c.num(value), Msg: text}
	if layer != "" {
		a.Layer = c.layerIdx[layer]
	}
	if len(parts) > 1 {
		a.Probe = c.probeIdx[parts[1]]
	}
	f.Alerts = append(f.Alerts, a)
}

// evalOf is f's evaluation of split, added (its values NaN) when missing.
func evalOf(f *probes.Frame, split string) *probes.Eval {
	for i := range f.Eval {
		if f.Eval[i].Split == split {
			return &f.Eval[i]
		}
	}
	f.Eval = append(f.Eval, probes.Eval{Split: split, Loss: math.NaN(), Metric: math.NaN(), TrainLoss: math.NaN()})
	return &f.Eval[len(f.Eval)-1]
}

// TestAccuracyUnitsAgree: accuracy is a percentage in CSV, JSON Lines and
// Markdown alike (4871/5000 → 97.42).
func TestAccuracyUnitsAgree(t *testing.T) {
	path, _ := richRun(t)
	export := func(fn func(io.Writer, *Reader) error) string { return string(exportFile(t, path, fn)) }
	csvOut := export(ExportCSV)
	if !strings.Contains(csvOut, ",val_accuracy,97.42,") {
		t.Errorf("CSV val_accuracy is not 97.42:\n%s", csvOut)
	}
	js := export(ExportJSONL)
	var o struct {
		Eval []struct{ Metric float64 } `json:"eval"`
	}
	line := strings.Split(js, "\n")[2]
	if err := json.Unmarshal([]byte(line), &o); err != nil || len(o.Eval) != 1 || o.Eval[0].Metric != 97.42 {
		t.Errorf("JSONL eval metric %+v (%v), want 97.42:\n%s", o, err, line)
	}
	md := export(ExportMarkdown)
	if !strings.Contains(md, "| 97.00 | 96.00 |") || !strings.Contains(md, "accuracy in %") {
		t.Errorf("Markdown:\n%s", md)
	}
}

// TestExportedAccuracyReadsBackAsStream: docs/formats.md promises that a JSON Lines
// export behind a header line is a stream; the export's percentages
// ("unit":"%") come back as the fractions the run file holds.
func TestExportedAccuracyReadsBackAsStream(t *testing.T) {
	path, frames := richRun(t)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	meta := r.Meta()
	var b bytes.Buffer
	err = ExportJSONL(&b, r)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	head, err := json.Marshal(map[string]any{"normtop_stream": 1, "meta": meta})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"metric":97.42,"unit":"%"`) {
		t.Fatalf("the export does not mark its percentages:\n%s", b.String())
	}
	s, err := Open(writeStream(t, append(append(head, '\n'), b.Bytes()...)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := readAllFrames(t, s)
	var n int
	for i, f := range got {
		for k, e := range f.Eval {
			want := frames[i].Eval[k].Metric
			if math.Abs(e.Metric-want) > 1e-15 {
				t.Errorf("frame %d %s metric %v, want %v", i, e.Split, e.Metric, want)
			}
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d evaluations read back, want 3", n)
	}
}
