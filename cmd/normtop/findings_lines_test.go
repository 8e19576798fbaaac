package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/normtop/normtop/report"
)

// TestSummaryFindingsAsReport (issue 34, point 4): the dashboard's Summary
// lines (findingLines: report.FindingLines, which keeps only what the
// verdicts read) are what `normtop report` judges (report.Build), string for
// string, on trained runs where findings (i), (iii), (iv), (v) and (vii)
// are judged.
func TestSummaryFindingsAsReport(t *testing.T) {
	dir := t.TempDir()
	small := []string{"--headless", "--data", "text", "--d-model", "16", "--seq-len", "16", "--batch", "4",
		"--eval-every", "50", "--eval-size", "4", "--seeds", "1,2,3"}
	judged := 0
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"transformer", []string{"--model", "transformer", "--layers", "1", "--heads", "2", "--steps", "300",
			"--variants", "batchnorm:groups=1,pn-v:groups=1,layernorm,layernorm-simple,detachnorm,powernorm"}},
		{"lstm", []string{"--model", "lstm", "--steps", "200", "--variants", "none,layernorm"}},
	} {
		path := filepath.Join(dir, tc.name+".ntr")
		args := append(append([]string{"train", "--record", path}, small...), tc.args...)
		if res := normtop(t, dir, args...); res.code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, res.code, res.stderr)
		}
		rep, err := report.Build([]string{path})
		if err != nil {
			t.Fatal(err)
		}
		want, got := rep.Lines(), findingLines(path)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: the Summary's lines\n%s\nnormtop report's\n%s", tc.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		for _, l := range want {
			if !strings.Contains(l, report.NotMeasurable) {
				judged++
			}
		}
	}
	if judged < 5 {
		t.Errorf("only %d findings judged on these runs: the comparison says little", judged)
	}
}
