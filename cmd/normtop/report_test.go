package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportGoodRunFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "good.ntr")
	writeRun(t, path, 40, false)
	res := normtop(t, dir, "report", path)
	if res.code != 0 || res.stderr != "" {
		t.Fatalf("report: exit %d, stderr %q", res.code, res.stderr)
	}
	for _, want := range []string{"== Variants ==", "layernorm", "powernorm", "== Findings ==", "(v) ", "verdict: "} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, res.stdout)
		}
	}
	res = normtop(t, dir, "report", path, "--format", "json")
	var doc struct {
		Findings []struct{ ID, Verdict string }
	}
	if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil {
		t.Errorf("report --format json: %v\n%s", err, res.stdout)
	}
	ids := map[string]bool{}
	for _, f := range doc.Findings {
		ids[f.ID] = true
	}
	for _, id := range []string{"i", "ii", "iii", "iv", "v", "vi-a", "vi-b", "vii"} {
		if !ids[id] {
			t.Errorf("report --format json: no finding %s among %d", id, len(doc.Findings))
		}
	}
	out := filepath.Join(dir, "r.md")
	res = normtop(t, dir, "report", path, "--format", "md", "--out", out)
	b, err := os.ReadFile(out)
	if res.code != 0 || err != nil || !strings.HasPrefix(string(b), "# normtop report") {
		t.Errorf("report --out: exit %d, %v, %q", res.code, err, b)
	}
	res = normtop(t, dir, "report", path, "--out", filepath.Join(dir, "no", "such", "dir", "r.txt"))
	checkOneLine(t, "report --out into a missing directory", res, exitFailure, "--out")
}

// Runs of different models (other than cnn next to transformer) cannot be
// compared: one line, a usage error.
func TestReportDifferentModels(t *testing.T) {
	dir := t.TempDir()
	mlp := filepath.Join(dir, "mlp.ntr")
	writeRun(t, mlp, 20, false)
	tf := writeTransformerRun(t, dir)
	res := normtop(t, dir, "report", mlp, tf)
	checkOneLine(t, "report mlp + transformer", res, exitUsage, "mlp.ntr", "tf.ntr", "one model")
}
