package report

import (
	"fmt"
	"math"

	"github.com/normtop/normtop/probes"
)

// Finding is one paper claim, the numbers the run files give for it and the
// verdict.
type Finding struct {
	ID      string   `json:"id"`      // "i" … "v"
	Claim   string   `json:"claim"`   // the claim, with its source
	Model   string   `json:"model"`   // the model whose runs judged it ("" when none could)
	Numbers []string `json:"numbers"` // one line per measured quantity
	Verdict string   `json:"verdict"` // Supported, NotSupported, WithinNoise or NotMeasurable
	Reason  string   `json:"reason"`
	// SubClaims are docs/findings.md's sub-claims, each judged on its own
	// ((ii-a) … (ii-d), (iii-a), (iii-b), (iv)'s k); their lines are in
	// Numbers too.
	SubClaims []SubClaim `json:"sub_claims,omitempty"`
}

// SubClaim is one sub-claim of a finding: its rule, the numbers and its
// status (Holds, DoesNotHold, WithinNoise, NotMeasurable).
type SubClaim struct {
	ID      string   `json:"id"`
	Rule    string   `json:"rule"`
	Numbers []string `json:"numbers"`
	Status  string   `json:"status"`
	Reason  string   `json:"reason"`
}

// lines prints a sub-claim: a heading line with its status, then its
// numbers indented.
func (s SubClaim) lines() []string {
	out := []string{fmt.Sprintf("(%s) %s: %s (%s)", s.ID, s.Rule, s.Status, s.Reason)}
	for _, n := range s.Numbers {
		out = append(out, "  "+n)
	}
	return out
}

// findings judges the claims of docs/findings.md on the grouped runs: (i)-(v),
// then (vi-a), (vi-b) (findings_placement.go) and (vii) (findings_lstm.go).
func findings(groups []*Group) []Finding {
	models := modelOrder(groups)
	out := []Finding{
		findingDetach(groups, models),
		findingTails(groups),
		findingPsi2(groups, models),
		findingSpectrum(groups, models),
		findingOverfit(groups, models),
	}
	out = append(out, placementFindings(groups)...)
	return append(out, findingLSTM(groups))
}

// modelOrder puts the transformer first: the papers' claims are about it.
func modelOrder(groups []*Group) []string {
	var ms []string
	seen := map[string]bool{}
	if hasModel(groups, "transformer") {
		ms, seen["transformer"] = append(ms, "transformer"), true
	}
	for _, g := range groups {
		if !seen[g.Model] {
			ms, seen[g.Model] = append(ms, g.Model), true
		}
	}
	return ms
}

func hasModel(groups []*Group, model string) bool {
	for _, g := range groups {
		if g.Model == model {
			return true
		}
	}
	return false
}

// pick returns the group of variant name in model: the one with default
// options when there are several specs of that name, else the first.
func pick(groups []*Group, model, name string) *Group {
	var first *Group
	for _, g := range groups {
		if g.Model != model || g.Name != name {
			continue
		}
		if g.Spec == name {
			return g
		}
		if first == nil {
			first = g
		}
	}
	return first
}

func compare(what string, a, b *Group, fa, fb probes.MeanSD, higher bool) comparison {
	return comparison{What: what, A: a.Spec, B: b.Spec, a: fa, b: fb, Higher: higher}
}

// line prints a comparison: both sides as mean ± sd (seeds), the difference
// and twice its standard error.
func (c comparison) line() string {
	s := fmt.Sprintf("%s: %s %s vs %s %s", c.What, c.A, fmtAgg(c.a), c.B, fmtAgg(c.b))
	d := c.Diff()
	if math.IsNaN(d) {
		return s
	}
	s += ", difference " + fmtSigned(d)
	if se := c.SE(); !math.IsNaN(se) {
		s += ", 2×SE " + fmtNum(2*se)
	}
	return s
}

func linesOf(cs []comparison) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.line()
	}
	return out
}

func findingDetach(groups []*Group, models []string) Finding {
	f := Finding{ID: "i", Claim: "Xu et al. 2019, Table 2: DetachNorm trains worse than LayerNorm-simple (higher train loss, worse validation metric)."}
	for _, m := range models {
		d, s := pick(groups, m, "detachnorm"), pick(groups, m, "layernorm-simple")
		if d == nil || s == nil {
			continue
		}
		cs := []comparison{
			compare("final train loss", d, s, d.FinalTrain, s.FinalTrain, true),
			compare("final val "+d.Metric.Name()+unitSuffix(d.Metric), d, s, metricAgg(d.Metric, d.FinalVal), metricAgg(d.Metric, s.FinalVal), !d.Metric.HigherIsBetter()),
		}
		f.Model, f.Numbers = m, linesOf(cs)
		f.Verdict, f.Reason = combine(cs)
		return f
	}
	f.Verdict, f.Reason = NotMeasurable, "needs detachnorm and layernorm-simple in one model's runs"
	return f
}

func findingOverfit(groups []*Group, models []string) Finding {
	f := Finding{ID: "v", Claim: "Xu et al. 2019, Figs. 1, 3: LayerNorm's gain and bias over-fit: lower train loss and higher validation loss (a larger generalization gap) than LayerNorm-simple and AdaNorm."}
	for _, m := range models {
		ln := pick(groups, m, "layernorm")
		if ln == nil {
			continue
		}
		var cs []comparison
		var extra []string
		for _, name := range []string{"layernorm-simple", "adanorm"} {
			o := pick(groups, m, name)
			if o == nil {
				continue
			}
			cs = append(cs, compare("generalization gap", ln, o, ln.Gap, o.Gap, true))
			extra = append(extra,
				compare("final train loss", ln, o, ln.FinalTrain, o.FinalTrain, false).line(),
				compare("final val loss", ln, o, ln.FinalValLoss, o.FinalValLoss, true).line())
		}
		if len(cs) == 0 {
			continue
		}
		f.Model = m
		f.Numbers = append(linesOf(cs), extra...)
		f.Verdict, f.Reason = combine(cs)
		return f
	}
	f.Verdict, f.Reason = NotMeasurable, "needs layernorm and layernorm-simple (or adanorm) in one model's runs"
	return f
}

// metricAgg shows an aggregate of the metric in the unit every other output
// uses (accuracy in percent: probes.Metric.Value); the spread scales alike.
func metricAgg(m probes.Metric, a probes.MeanSD) probes.MeanSD {
	a.Mean, a.SD = m.Value(a.Mean), m.Value(a.SD)
	return a
}

// unitSuffix is " (%)" for accuracy, whose aggregates metricAgg shows in
// percent.
func unitSuffix(m probes.Metric) string {
	if m == probes.MetricAccuracy {
		return " (%)"
	}
	return ""
}
