package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// TestStreamHeaderFacts: a PyTorch stream whose header says which layer is
// a BatchNorm and at what momentum gets that layer's start-up window (and
// only that layer's); its embedding width and missing metric print as such.
func TestStreamHeaderFacts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "torch.jsonl")
	var b strings.Builder
	head := map[string]any{"normtop_stream": 1, "meta": map[string]any{
		"RunID": "torch-run", "Model": "pytorch:Net", "Variants": []map[string]string{{"Name": "Net", "Spec": "Net"}},
		"Layers": []string{"ln", "bn"},
		"Config": map[string]string{"layer.ln.kind": "layernorm", "layer.bn.kind": "batchnorm",
			"layer.bn.momentum": "0.1", "embedding_d": "8"},
	}}
	line, _ := json.Marshal(head)
	b.Write(append(line, '\n'))
	const steps = 200
	for s := 1; s <= steps; s++ {
		// bn's own distance decays from its init like (1−0.1)^t; ln's is a
		// shadow distance, flat from step 1.
		fr := map[string]any{"variant": "Net", "step": s, "train_loss": 1.0, "status": "running",
			"layers": map[string]map[string]float64{
				"ln": {"dist_var": 0.01 + 0.001*float64(s%3)},
				"bn": {"dist_var": 0.01 + 0.001*float64(s%3) + pow(0.9, s)},
			}}
		if s == steps {
			fr["status"] = "done"
			fr["spectrum"] = map[string]any{"step": s, "sigma": []float64{1, 0.5, 0.25}, "eff_rank": 2.5}
		}
		line, _ = json.Marshal(fr)
		b.Write(append(line, '\n'))
	}
	b.WriteString(`{"end":{"status":"completed"}}` + "\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Build([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Runs[0].Reps[0]
	if w := rep.Layers[0].Probes[probes.DistVar].Window; w != 0 {
		t.Errorf("ln (a shadow distance): window %d, want 0", w)
	}
	if w := rep.Layers[1].Probes[probes.DistVar].Window; w < 30 {
		t.Errorf("bn at momentum 0.1: window %d, want at least ⌈3/0.1⌉ = 30", w)
	}
	if len(r.Runs[0].Unparsed) != 0 {
		t.Errorf("the header describes every layer, yet %v is called unknown", r.Runs[0].Unparsed)
	}
	var out strings.Builder
	if err := r.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"no metric", "layer bn (batchnorm, its own momentum 0.1, from the run header)"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(text, "metric metric") {
		t.Error(`report says "metric metric"`)
	}
	if g := r.Groups[0]; g.D != 8 {
		t.Errorf("spectrum d = %d, want the header's embedding_d 8", g.D)
	}
}

func pow(x float64, n int) float64 {
	out := 1.0
	for range n {
		out *= x
	}
	return out
}
