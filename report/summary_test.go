package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

func TestFindingLine(t *testing.T) {
	cases := []struct {
		f    Finding
		want string
	}{
		{Finding{ID: "iii", Verdict: NotSupported}, "(iii) ψ² fluctuates far less than σ² (PowerNorm Fig. 4): not supported"},
		{Finding{ID: "i", Verdict: WithinNoise}, "(i) DetachNorm trains worse than LayerNorm-simple (Xu et al. Table 2): within seed noise"},
		{Finding{ID: "x", Claim: "some claim", Verdict: Supported}, "(x) some claim: supported"},
		// A whole claim is a sentence: its period does not precede the colon.
		{Finding{ID: "vi-a", Claim: "Judged: above 1, beyond seed noise.", Verdict: NotMeasurable},
			"(vi-a) Judged: above 1, beyond seed noise: not measurable with this model/run"},
		{Finding{ID: "y", Claim: "ends in (ii-b) and (iii-b) hold).", Verdict: WithinNoise, Reason: "why."},
			"(y) ends in (ii-b) and (iii-b) hold): within seed noise"},
	}
	for _, c := range cases {
		if got := c.f.Line(); got != c.want {
			t.Errorf("Line() = %q, want %q", got, c.want)
		}
	}
	r := &Report{Findings: []Finding{cases[0].f, cases[1].f}}
	if got := r.Lines(); len(got) != 2 || got[1] != cases[1].want {
		t.Errorf("Lines() = %q", got)
	}
	for _, id := range []string{"i", "ii", "iii", "iv", "v"} {
		if findingTitles[id] == "" {
			t.Errorf("finding %s has no title", id)
		}
	}
}

// TestFindingLinesAsBuild: the Summary's lines from the read that keeps
// only what the verdicts read (FindingLines) are Build's, string for
// string, on every fixture that judges a finding: the transformer of six
// variants, the same beside a cnn ((ii)), the lstm ((vii)) and the Pre-LN /
// Post-LN layout ((vi)). A read missing one of the kept series changes
// them, so the comparison can fail.
func TestFindingLinesAsBuild(t *testing.T) {
	dir := t.TempDir()
	tf := paperFixture().write(t, dir, "tf.ntr")
	cnn := cnnFixture().write(t, dir, "cnn.ntr")
	lstm := lstmFixture([]int64{1, 2, 3}, 1.0/15, 0.15).write(t, dir, "lstm.ntr")
	judged := 0
	for _, tc := range []struct {
		name  string
		paths []string
	}{
		{"transformer", []string{tf}},
		{"transformer and cnn", []string{tf, cnn}},
		{"lstm", []string{lstm}},
		{"placement", placementRuns(t, dir)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Build(tc.paths)
			if err != nil {
				t.Fatal(err)
			}
			want := rep.Lines()
			got, err := FindingLines(tc.paths)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("FindingLines:\n%s\nBuild's lines:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, l := range want {
				if !strings.Contains(l, NotMeasurable) {
					judged++
				}
			}
		})
	}
	if judged < 4 {
		t.Fatalf("only %d findings judged over the fixtures: the comparison says little", judged)
	}

	// Without rdist_var (judged by (ii) and (iii)) the lines differ.
	k := findingsKeep
	k.probe[probes.RdistVar] = false
	want, _ := Build([]string{tf, cnn})
	run1, err := readKeeping(tf, 1, k)
	if err != nil {
		t.Fatal(err)
	}
	run2, err := readKeeping(cnn, 1, k)
	if err != nil {
		t.Fatal(err)
	}
	short, err := New([]*Run{run1, run2})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(short.Lines(), want.Lines()) {
		t.Errorf("the lines are the same without rdist_var: the comparison cannot tell a missing series")
	}
}
