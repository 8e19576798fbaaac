package report

import (
	"fmt"
	"math"
	"strings"

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
}

// findings judges the claims of FINDINGS.md on the grouped runs: (i)-(v),
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

func compare(what string, a, b *Group, fa, fb agg, higher bool) comparison {
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

// tail is, per replicate, the median over the layers of probe p's
// p99/median after the warm-up window.
func tail(g *Group, p probes.Probe) agg {
	xs := make([]float64, len(g.Reps))
	for i, r := range g.Reps {
		var per []float32
		for _, ls := range r.Layers {
			if v := ls.Probes[p].P99Med(); ls.Probes[p].N > 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
				per = append(per, float32(v))
			}
		}
		xs[i] = median(per)
	}
	return aggregate(xs)
}

// tailCompare compares the tails of probe pa in a with probe pb in b;
// withModel names the models (for the CNN-vs-Transformer comparison).
func tailCompare(a, b *Group, pa, pb probes.Probe, withModel bool) comparison {
	c := comparison{What: "p99/median after warm-up, median over layers",
		A: a.Label(withModel) + " " + pa.String(), B: b.Label(withModel) + " " + pb.String(), a: tail(a, pa), b: tail(b, pb), Higher: true}
	names, _ := startupLayers(a, pa)
	c.startup = 2*len(names) > measuredLayers(a, pa)
	return c
}

// startupTrend: a distance to a layer's own running statistic whose median
// over the last quarter of the run is below this fraction of the first
// quarter's is still falling from the statistic's init (σ² = ψ² = 1) after
// the ⌈3/rate⌉-step window of NORMS.md §5. The window assumes the init is
// about as far from the batch statistics as they are from each other; when
// the layer's inputs have a variance of 1e-3 (a Transformer's first blocks)
// the residual (1−rate)^W·|1 − σ_B²| still dwarfs the batch-to-batch
// distances, and the tail measures the start-up.
const startupTrend = 0.25

// startupLayers lists the layers where probe p of g measures the start-up
// rather than the batch-to-batch fluctuation, with their trends.
func startupLayers(g *Group, p probes.Probe) (names []string, trends []float64) {
	if !g.Warmup.Applies(p) {
		return nil, nil
	}
	for l, ps := range g.Probes {
		if t := ps[p].Trend; ps[p].N > 0 && t.N > 0 && t.Mean < startupTrend {
			names = append(names, g.Layers[l])
			trends = append(trends, t.Mean)
		}
	}
	return names, trends
}

func measuredLayers(g *Group, p probes.Probe) int {
	n := 0
	for _, ps := range g.Probes {
		if ps[p].N > 0 {
			n++
		}
	}
	return n
}

// measured is one side of a tail comparison: its label, group and probe.
type measured struct {
	label string
	g     *Group
	p     probes.Probe
}

// startupLines are the cautions for the compared probes that still fall
// from their init after the warm-up window.
func startupLines(sides ...measured) []string {
	var out []string
	for _, m := range sides {
		names, trends := startupLayers(m.g, m.p)
		if len(names) == 0 {
			continue
		}
		parts := make([]string, len(names))
		for k := range names {
			parts[k] = names[k] + " " + fmtNum(trends[k])
		}
		out = append(out, fmt.Sprintf("start-up: %s still falls from its init after the %d-step warm-up window in %d of %d layers (trend, last/first quarter median: %s); there its tail measures the start-up, not batch-to-batch fluctuation",
			m.label, m.g.Warmup.Steps, len(names), measuredLayers(m.g, m.p), strings.Join(parts, ", ")))
	}
	return out
}

// ratioLine prints mean(a)/mean(b) of each tail comparison.
func ratioLine(cs []comparison) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s / %s = %s×", c.A, c.B, fmtNum(c.a.Mean/c.b.Mean))
	}
	return "tail ratios: " + strings.Join(parts, "; ")
}

func findingTails(groups []*Group) Finding {
	f := Finding{ID: "ii", Claim: "Shen et al. 2020 (PowerNorm), Figs. 2-3: BatchNorm's dist_var and g_var are far heavier-tailed in a Transformer than in a CNN (target: p99/median after warm-up ≥ 3× the CNN's)."}
	t, c := pick(groups, "transformer", "batchnorm"), pick(groups, "cnn", "batchnorm")
	if t == nil || c == nil {
		f.Verdict, f.Reason = NotMeasurable, "needs a transformer run and a cnn run, each with batchnorm, given together (normtop report T.ntr C.ntr)"
		return f
	}
	cs := []comparison{tailCompare(t, c, probes.DistVar, probes.DistVar, true), tailCompare(t, c, probes.GVar, probes.GVar, true)}
	f.Model = "transformer vs cnn"
	f.Numbers = append(linesOf(cs), ratioLine(cs))
	f.Numbers = append(f.Numbers, startupLines(measured{cs[0].A, t, probes.DistVar}, measured{cs[0].B, c, probes.DistVar})...)
	f.Verdict, f.Reason = ratioVerdict(cs, 3)
	return f
}

func findingPsi2(groups []*Group, models []string) Finding {
	f := Finding{ID: "iii", Claim: "Shen et al. 2020 (PowerNorm), Fig. 4: ψ² fluctuates far less than σ² (target: dist_psi2 and g_psi2 of pn-v/powernorm ≥ 2× lighter-tailed than batchnorm's dist_var and g_var in the same run, at the same EMA rate)."}
	for _, m := range models {
		bn := pick(groups, m, "batchnorm")
		pn := pick(groups, m, "pn-v")
		if pn == nil {
			pn = pick(groups, m, "powernorm")
		}
		if bn == nil || pn == nil {
			continue
		}
		cs := []comparison{tailCompare(bn, pn, probes.DistVar, probes.DistPsi2, false), tailCompare(bn, pn, probes.GVar, probes.GPsi2, false)}
		f.Model = m
		f.Numbers = append(linesOf(cs), ratioLine(cs))
		f.Numbers = append(f.Numbers, startupLines(measured{cs[0].A, bn, probes.DistVar}, measured{cs[0].B, pn, probes.DistPsi2})...)
		rb, rp := bn.Warmup.Rate, pn.Warmup.Rate
		rates := fmt.Sprintf("EMA rates: %s momentum m = %s, %s 1−α = %s", bn.Spec, fmtNum(rb), pn.Spec, fmtNum(rp))
		mismatched := math.Abs(rb-rp) > 1e-12
		if mismatched {
			rates += fmt.Sprintf(": rate-mismatched (the distances compare with EMAs of different memory; %s:alpha=%s would match)", pn.Name, fmtNum(1-rb))
		} else {
			rates += ": same rate"
		}
		f.Numbers = append(f.Numbers, rates)
		// The same inputs at the same rate: batchnorm's own σ² (momentum
		// m) against the shadow ψ² the probes keep on its layers (rate
		// DefaultShadowMomentum, from the first batch). Shown, not judged:
		// the claim is about PN-V's own ψ².
		if math.Abs(rb-probes.DefaultShadowMomentum) < 1e-12 && tail(bn, probes.DistPsi2).N > 0 {
			same := tailCompare(bn, bn, probes.DistVar, probes.DistPsi2, false)
			f.Numbers = append(f.Numbers, "same rate, same inputs (shown, not judged): "+same.line(),
				fmt.Sprintf("  batchnorm's own dist_var / its shadow dist_psi2 = %s×", fmtNum(same.a.Mean/same.b.Mean)))
		}
		f.Verdict, f.Reason = ratioVerdict(cs, 2)
		if mismatched {
			f.Reason += "; dist comparison rate-mismatched (g_var vs g_psi2 does not depend on the rate)"
		}
		return f
	}
	f.Verdict, f.Reason = NotMeasurable, "needs batchnorm and pn-v (or powernorm) in one model's runs"
	return f
}

// findingSpectrum judges powernorm against layernorm (pn-v when the run has
// no powernorm); the other PN variant's numbers are shown beside it.
func findingSpectrum(groups []*Group, models []string) Finding {
	f := Finding{ID: "iv", Claim: "Shen et al. 2020 (PowerNorm), Fig. 6: PowerNorm's embedding spectrum decays more slowly than LayerNorm's (higher effective rank and σ_k/σ_1)."}
	for _, m := range models {
		ln := pick(groups, m, "layernorm")
		var pns []*Group
		for _, name := range []string{"powernorm", "pn-v"} {
			if g := pick(groups, m, name); g != nil {
				pns = append(pns, g)
			}
		}
		if ln == nil || len(pns) == 0 {
			continue
		}
		f.Model = m
		if ln.EffRank.N == 0 {
			f.Verdict, f.Reason = NotMeasurable, "no embedding spectrum recorded ("+m+" has no embedding matrix, or the spectrum probe was off)"
			return f
		}
		// The claim is a slower decay: the effective rank and the tail
		// ratios σ_k/σ_1 must agree, so all three are judged (a higher
		// effective rank with a faster-falling tail is not the claim).
		var judged []comparison
		for i, pn := range pns {
			cs := []comparison{
				compare("effective rank", pn, ln, pn.EffRank, ln.EffRank, true),
				compare(fmt.Sprintf("σ_k/σ_1 at k = d/4 (d = %d)", pn.D), pn, ln, pn.SigmaQuarter, ln.SigmaQuarter, true),
				compare(fmt.Sprintf("σ_k/σ_1 at k = d/2 (d = %d)", pn.D), pn, ln, pn.SigmaHalf, ln.SigmaHalf, true),
			}
			if i == 0 {
				judged = cs
			}
			for _, c := range cs {
				f.Numbers = append(f.Numbers, c.line())
			}
		}
		f.Verdict, f.Reason = combine(judged)
		f.Reason += "; judged on " + pns[0].Spec + "'s effective rank and σ_k/σ_1 at d/4 and d/2"
		return f
	}
	f.Verdict, f.Reason = NotMeasurable, "needs layernorm and powernorm (or pn-v) in a model with an embedding (transformer)"
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
func metricAgg(m probes.Metric, a agg) agg {
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
