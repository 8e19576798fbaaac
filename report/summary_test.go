package report

import "testing"

func TestFindingLine(t *testing.T) {
	cases := []struct {
		f    Finding
		want string
	}{
		{Finding{ID: "iii", Verdict: NotSupported}, "(iii) ψ² fluctuates far less than σ² (PowerNorm Fig. 4): not supported"},
		{Finding{ID: "i", Verdict: WithinNoise}, "(i) DetachNorm trains worse than LayerNorm-simple (Xu et al. Table 2): within seed noise"},
		{Finding{ID: "x", Claim: "some claim", Verdict: Supported}, "(x) some claim: supported"},
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
