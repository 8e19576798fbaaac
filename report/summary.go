package report

import "strings"

// findingTitles are the claims of the five findings in a few words, for
// places with one line per finding (the dashboard's Summary screen).
var findingTitles = map[string]string{
	"i":   "DetachNorm trains worse than LayerNorm-simple (Xu et al. Table 2)",
	"ii":  "a Transformer's batch statistics far less stable than a CNN's, first BN layer (PowerNorm Figs. 2-3)",
	"iii": "ψ² fluctuates far less than σ² (PowerNorm Fig. 4)",
	"iv":  "PowerNorm's embedding spectrum decays more slowly than LayerNorm's (PowerNorm Fig. 6)",
	"v":   "LayerNorm's gain and bias over-fit (Xu et al. Figs. 1, 3)",
}

// Line is the finding in one line: its claim in a few words and the
// verdict, e.g. "(iii) ψ² fluctuates far less than σ² (PowerNorm Fig. 4):
// not supported".
func (f Finding) Line() string {
	t, ok := findingTitles[f.ID]
	if !ok {
		t = f.Claim
	}
	if f.Verdict == NotMeasurable && f.Reason != "" {
		// Say why: what the claim needs that these runs lack.
		return "(" + f.ID + ") " + t + ": " + f.Verdict + " (" + strings.TrimSuffix(f.Reason, ".") + ")"
	}
	return "(" + f.ID + ") " + t + ": " + f.Verdict
}

// Lines are the findings as Line gives them, in order.
func (r *Report) Lines() []string {
	out := make([]string, len(r.Findings))
	for i, f := range r.Findings {
		out[i] = f.Line()
	}
	return out
}
