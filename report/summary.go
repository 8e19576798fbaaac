package report

import (
	"strings"

	"github.com/normtop/normtop/probes"
)

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
// not supported". A finding without a short title gives its whole claim,
// a sentence, without its closing period: the colon and the verdict end
// the line ("…beyond seed noise: not measurable", not "noise.: not").
func (f Finding) Line() string {
	t, ok := findingTitles[f.ID]
	if !ok {
		t = strings.TrimSuffix(f.Claim, ".")
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

// FindingLines is Build(paths) then Lines, from a fraction of the memory:
// the dashboard's Summary screen runs it beside the dashboard, on a run of
// any length. Each file is read in one pass (Build's parallel parts are
// joined by copying, holding the series twice), keeping only what the
// verdicts are computed from (findingsKeep: the series of the variants and
// layers that findings (ii), (iii) and (vii) judge: 0.8 M of a
// 100,000-step mlp run's 17.2 M probe values, its batchnorm's fc1), and
// no batches, Theorem-1 ratios or figure curves. The lines are Build's,
// string for string (TestFindingLinesAsBuild; cmd/normtop checks it on
// trained runs). The memory still grows with the steps of the judged
// series (values and steps, about 8 bytes a value), a small part of a run.
func FindingLines(paths []string) ([]string, error) {
	runs := make([]*Run, 0, len(paths))
	for _, p := range paths {
		run, err := readKeeping(p, 1, findingsKeep)
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	r, err := New(runs)
	if err != nil {
		return nil, err
	}
	return r.Lines(), nil
}

// judgedSite reports whether a finding reads layer l of variant v's probe
// series: (ii) and (iii) judge batchnorm and pn-v on the first norm layer
// (findingTails, psi2Pair), (vii) the lstm's none and layernorm on its h
// site (findingLSTM); no other finding reads a probe series.
func judgedSite(m probes.RunMeta, v, l int) bool {
	switch name := m.Variants[v].Name; {
	case (name == bnName || name == pnvName) && l == firstNormLayer:
		return true
	case m.Model == lstmModel && (name == lstmNormed || name == lstmPlain) && l == hSite(m.Layers):
		return true
	}
	return false
}

// findingsKeep is what the findings' verdicts read of the probe series:
// the statistics (ii) and (iii) judge (relative distances, the gradient
// terms), the plain distances whose start-up windows the relative ones take
// (startupWindows), and the LSTM's hidden-state norms (vii), each only at
// the sites judgedSite names. (vi-a) reads
// gw_norm at step 1 only, which every read keeps; the train losses,
// evaluations and spectra are kept whole too.
var findingsKeep = func() keep {
	k := keep{sites: judgedSite}
	for _, p := range []probes.Probe{
		probes.RdistMu, probes.RdistVar, probes.RdistPsi2, probes.GMu, probes.GVar, probes.GPsi2,
		probes.DistMu, probes.DistVar, probes.DistPsi2,
		probes.HNorm, probes.HNormCV,
	} {
		k.probe[p] = true
	}
	return k
}()
