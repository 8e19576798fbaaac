package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/normtop/normtop/probes"
)

// Helpers of the stream tests: headers, lines, and streams made from what
// ExportJSONL writes.

func streamHeaderLine(t testing.TB, meta probes.RunMeta, streams ...string) []byte {
	return streamHeaderWith(t, meta, nil, streams...)
}

// streamHeaderWith is streamHeaderLine with more header keys.
func streamHeaderWith(t testing.TB, meta probes.RunMeta, keys map[string]any, streams ...string) []byte {
	h := map[string]any{"normtop_stream": 1, "meta": meta}
	for k, v := range keys {
		h[k] = v
	}
	if len(streams) > 0 {
		h["streams"] = streams
	}
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// exportedLines writes frames to a run file and returns what ExportJSONL
// makes of them: the stream's frame lines are that schema.
func exportedLines(t testing.TB, meta probes.RunMeta, frames []probes.Frame) []byte {
	path := filepath.Join(t.TempDir(), "src.ntr")
	w, err := Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(End{Status: StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	return exportFile(t, path, ExportJSONL)
}

func writeStream(t testing.TB, b []byte) string {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readAllFrames(t testing.TB, r *Reader) []probes.Frame {
	var out []probes.Frame
	for {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
}

// asStreamed is what a frame looks like after a trip through JSON: every
// NaN is the canonical "unmeasured" NaN, all layers are present, elapsed is
// whole microseconds, a nil spectrum Sigma is empty.
func asStreamed(f probes.Frame, layers int) probes.Frame {
	canon := func(v float64) float64 {
		if math.IsNaN(v) {
			return math.NaN()
		}
		return v
	}
	f.Epoch, f.TrainLoss, f.StepsPerSec = canon(f.Epoch), canon(f.TrainLoss), canon(f.StepsPerSec)
	if f.Layers != nil {
		ls := make([]probes.LayerValues, layers)
		for i := range ls {
			ls[i] = probes.EmptyLayerValues()
			if i < len(f.Layers) {
				for p, v := range f.Layers[i] {
					ls[i][p] = canon(v)
				}
			}
		}
		f.Layers = ls
	}
	if f.Eval != nil {
		f.Eval = append([]probes.Eval{}, f.Eval...)
		for i := range f.Eval {
			e := &f.Eval[i]
			e.Loss, e.Metric, e.TrainLoss = canon(e.Loss), canon(e.Metric), canon(e.TrainLoss)
		}
	}
	if f.Spectrum != nil {
		s := *f.Spectrum
		s.Sigma = append([]float64{}, s.Sigma...)
		for i := range s.Sigma {
			s.Sigma[i] = canon(s.Sigma[i])
		}
		s.EffRank = canon(s.EffRank)
		f.Spectrum = &s
	}
	if f.Alerts != nil {
		f.Alerts = append([]probes.Alert{}, f.Alerts...)
		for i := range f.Alerts {
			f.Alerts[i].Value, f.Alerts[i].Threshold = canon(f.Alerts[i].Value), canon(f.Alerts[i].Threshold)
		}
	}
	f.Elapsed = f.Elapsed.Round(1000)
	return f
}

func sameMeta(a, b probes.RunMeta) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

const twoLayerHead = `{"normtop_stream":1,"meta":{"RunID":"r","Model":"pytorch:Net","Metric":"accuracy","Variants":[{"Name":"ln","Spec":"ln"},{"Name":"bn","Spec":"bn"}],"Layers":["a","b"]}}` + "\n"

func line(variant string, step int, extra string) string {
	return `{"variant":"` + variant + `","step":` + itoa(step) + `,"train_loss":1.5` + extra + "}\n"
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
