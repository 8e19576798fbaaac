package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/normtop/normtop/probes"
)

// PowerNorm's claims (ii) and (iii), judged as docs/findings.md writes
// them: on the first norm layer of each network (every other layer printed
// beside it, never pooled into it), after each statistic's start-up window,
// with ≥ 3 seeds a side, each sub-claim on its own.

// The variants (ii) and (iii) judge, and where: their probe series are all
// that the findings read of those claims (judgedSite keeps nothing else for
// the Summary's lines).
const (
	bnName         = "batchnorm" // (ii)'s both sides, (iii)'s σ² side
	pnvName        = "pn-v"      // (iii)'s ψ² side
	firstNormLayer = 0           // RunMeta.Layers lists the sites in forward order
)

// side is one side of a comparison: a variant group and the layer judged,
// the network's first norm layer (RunMeta.Layers lists the sites in
// forward order: a Transformer's first encoder norm, the BN right after a
// ResNet's first convolution).
type side struct {
	g     *Group
	layer int
}

func (s side) label() string { return s.g.Model + " " + s.g.Spec }
func (s side) layerName() string {
	if s.layer < len(s.g.Layers) {
		return s.g.Layers[s.layer]
	}
	return "?"
}
func (s side) probe(p probes.Probe) ProbeAgg {
	if s.layer < len(s.g.Probes) {
		return s.g.Probes[s.layer][p]
	}
	return ProbeAgg{}
}

// seeds is the number of replicates of the side.
func (s side) seeds() int { return len(s.g.Reps) }

// stat compares a per-seed statistic of probe pa on side a with that of pb
// on side b, each at its judged layer.
func stat(what string, a side, pa probes.Probe, b side, pb probes.Probe, f func(ProbeAgg) probes.MeanSD, higher bool) comparison {
	return comparison{What: what + " of " + pa.String() + " vs " + pb.String(),
		A: a.label() + " " + a.layerName(), B: b.label() + " " + b.layerName(), a: f(a.probe(pa)), b: f(b.probe(pb)), Higher: higher}
}

func medianOf(pa ProbeAgg) probes.MeanSD   { return pa.Median }
func p99Of(pa ProbeAgg) probes.MeanSD      { return pa.P99Med }
func maxMedOf(pa ProbeAgg) probes.MeanSD   { return pa.MaxMed }
func outliersOf(pa ProbeAgg) probes.MeanSD { return pa.OutliersPer1k }

// ratioLine adds mean(a)/mean(b) to a comparison's line.
func ratioLine(c comparison) string {
	return c.line() + ", ratio " + fmtNum(ratioOf(c.a.Mean, c.b.Mean)) + "×"
}

// subClaim judges comparisons into a SubClaim (target: the ratio each
// must reach, 0 for none).
func subClaim(id, rule string, cs []comparison, target float64) SubClaim {
	s := SubClaim{ID: id, Rule: rule}
	for _, c := range cs {
		s.Numbers = append(s.Numbers, ratioLine(c))
	}
	s.Status, s.Reason = judge(cs, target)
	return s
}

// isCNN: the CNN side of (ii) is a run whose model is a convolutional
// network; a ResNet (its first BN right after the first convolution, as
// in the paper) is preferred over the small cnn.
func isCNN(model string) bool { return model == "resnet" || model == "cnn" }

// specOption returns the value of option key in a variant spec
// ("batchnorm:groups=1,momentum=0.1"), "" when absent. It reads the text,
// so a spec this build cannot parse (a newer option) is still matched.
func specOption(spec, key string) string {
	_, opts, ok := strings.Cut(spec, ":")
	if !ok {
		return ""
	}
	for _, kv := range strings.Split(opts, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// pickVariant returns the group of variant name in one of models (in that
// order of preference), preferring specs by score (higher first), then the
// order the groups came in.
func pickVariant(groups []*Group, models []string, name string, score func(spec string) int) *Group {
	for _, m := range models {
		var best *Group
		for _, g := range groups {
			if g.Model == m && g.Name == name && (best == nil || score(g.Spec) > score(best.Spec)) {
				best = g
			}
		}
		if best != nil {
			return best
		}
	}
	return nil
}

// layerScaled prefers docs/findings.md's Transformer setting, the layer-scale
// step (groups=1), then the plain variant.
func layerScaled(spec string) int {
	switch {
	case specOption(spec, "groups") == "1":
		return 2
	case !strings.Contains(spec, ":"):
		return 1
	}
	return 0
}

// plainFirst prefers the variant with default options (the CNN's BN).
func plainFirst(spec string) int {
	if !strings.Contains(spec, ":") {
		return 1
	}
	return 0
}

// windowsLine names the steps a side skipped for each probe judged:
// "block0.ln1: rdist_var 1-143, rdist_mu 1-60, g_var none".
func windowsLine(s side, ps ...probes.Probe) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		w := "none"
		if pa := s.probe(p); pa.Skipped > 0 {
			w = windowText(pa.Window)
		}
		parts[i] = p.String() + " " + w
	}
	return s.label() + " " + s.layerName() + ": " + strings.Join(parts, ", ")
}

// besideLines print every other layer of a side, not judged: the claim is
// about the first layer, and the layers' values differ by orders of
// magnitude, so they are never pooled into it.
func besideLines(s side, ps ...probes.Probe) []string {
	var out []string
	for l := range s.g.Layers {
		if l == s.layer {
			continue
		}
		o := side{s.g, l}
		parts := make([]string, 0, len(ps))
		for _, p := range ps {
			pa := o.probe(p)
			if pa.N == 0 {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s median %s, p99/median %s, max/median %s, outliers/1k %s, persistence %s",
				p, fmtNum(pa.Median.Mean), fmtNum(pa.P99Med.Mean), fmtNum(pa.MaxMed.Mean), fmtNum(pa.OutliersPer1k.Mean), fmtNum(pa.PooledPersistence())))
		}
		if len(parts) > 0 {
			out = append(out, "beside (not judged): "+o.label()+" "+o.layerName()+": "+strings.Join(parts, "; "))
		}
	}
	return out
}

// rank orders sub-claim statuses by how much they weigh in a verdict.
func rank(status string) int {
	switch status {
	case DoesNotHold:
		return 3
	case NotMeasurable:
		return 2
	case WithinNoise:
		return 1
	}
	return 0
}

// verdictOf combines the sub-claims a verdict rests on: supported when all
// hold; not supported when one does not; not measurable when one cannot be
// measured; within seed noise otherwise.
func verdictOf(subs ...SubClaim) (verdict, reason string) {
	ids := func(status string) []string {
		var out []string
		for _, s := range subs {
			if s.Status == status {
				out = append(out, "("+s.ID+")")
			}
		}
		return out
	}
	switch {
	case len(ids(DoesNotHold)) > 0:
		return NotSupported, strings.Join(ids(DoesNotHold), ", ") + " does not hold"
	case len(ids(NotMeasurable)) > 0:
		return NotMeasurable, strings.Join(ids(NotMeasurable), ", ") + " not measurable"
	case len(ids(WithinNoise)) > 0:
		return WithinNoise, strings.Join(ids(WithinNoise), ", ") + " within seed noise"
	}
	return Supported, strings.Join(ids(Holds), ", ") + " hold"
}

// persists is the (ii-c) test on one side: the pooled persistence of each
// g probe (no outlier in either quarter counts as not persisting).
func persists(s side, ps ...probes.Probe) (all, none bool, lines []string) {
	all, none = true, true
	for _, p := range ps {
		pa := s.probe(p)
		v := pa.PooledPersistence()
		lines = append(lines, fmt.Sprintf("%s %s %s: persistence %s (outliers, all seeds: %d in the first quarter after the window, %d in the last quarter; per seed %s)",
			s.label(), s.layerName(), p, fmtNum(v), pa.OutFirst, pa.OutLast, fmtMS(pa.Persistence, fmtNum)))
		held := v >= 0.5 // NaN: no outliers to persist
		all = all && held
		none = none && !held
	}
	return all, none, lines
}

func persistenceClaim(t, c side) SubClaim {
	s := SubClaim{ID: "ii-c", Rule: "persistence: the Transformer's g outlier persistence ≥ 0.5 while the CNN's is < 0.5 (outliers in the last quarter / the first quarter after the window)"}
	tAll, _, tl := persists(t, probes.GMu, probes.GVar)
	_, cNone, cl := persists(c, probes.GMu, probes.GVar)
	s.Numbers = append(tl, cl...)
	switch {
	case t.seeds() < MinSeeds || c.seeds() < MinSeeds:
		s.Status, s.Reason = NotMeasurable, fewSeedsReason
	case tAll && cNone:
		s.Status, s.Reason = Holds, "the Transformer's outliers persist, the CNN's do not"
	default:
		s.Status, s.Reason = DoesNotHold, "a persistence is on the wrong side of 0.5"
	}
	return s
}

func growthClaim(t side) SubClaim {
	tr := t.probe(probes.RdistVar).Trend
	one := probes.MeanSD{Mean: 1, SD: 0, N: tr.N}
	c := comparison{What: "rdist_var trend (last-quarter median / first-quarter median after the window)",
		A: t.label() + " " + t.layerName(), B: "1 (no growth)", a: tr, b: one, Higher: true}
	s := SubClaim{ID: "ii-d", Rule: "growth: the Transformer's rdist_var trend > 1 beyond seed noise", Numbers: []string{c.line()}}
	s.Status, s.Reason = judge([]comparison{c}, 0)
	return s
}

func findingTails(groups []*Group) Finding {
	f := Finding{ID: "ii", Claim: "Shen et al. 2020 (PowerNorm), Figs. 2-3: in the first BN layer a Transformer's batch statistics are far less stable than a CNN's (docs/findings.md (ii): supported when (ii-a) magnitude and (ii-b) extremes hold)."}
	tg := pickVariant(groups, []string{"transformer"}, bnName, layerScaled)
	cg := pickVariant(groups, []string{"resnet", "cnn"}, bnName, plainFirst)
	if tg == nil || cg == nil {
		f.Verdict, f.Reason = NotMeasurable, "needs a transformer run with batchnorm (docs/findings.md: batchnorm:groups=1) and a resnet (or cnn) run with batchnorm, given together (normtop report T.ntr R.ntr)"
		return f
	}
	t, c := side{tg, firstNormLayer}, side{cg, firstNormLayer}
	f.Model = t.label() + " " + t.layerName() + " vs " + c.label() + " " + c.layerName()
	a := subClaim("ii-a", "magnitude: median rdist_var and median rdist_mu larger in the Transformer", []comparison{
		stat("median", t, probes.RdistVar, c, probes.RdistVar, medianOf, true),
		stat("median", t, probes.RdistMu, c, probes.RdistMu, medianOf, true),
	}, 0)
	var p99s, rates []comparison
	for _, p := range []probes.Probe{probes.RdistVar, probes.GMu, probes.GVar} {
		p99s = append(p99s, stat("p99/median", t, p, c, p, p99Of, true))
		rates = append(rates, stat("outliers per 1k steps", t, p, c, p, outliersOf, true))
	}
	b := subClaim("ii-b", "extremes: p99/median (≥ 3×) and outlier rate of rdist_var, g_mu, g_var larger in the Transformer", p99s, 3)
	if st, why := judge(rates, 0); rank(st) > rank(b.Status) {
		b.Status, b.Reason = st, why
	}
	for _, r := range rates {
		b.Numbers = append(b.Numbers, ratioLine(r))
	}
	for _, p := range []probes.Probe{probes.RdistVar, probes.GMu, probes.GVar} {
		b.Numbers = append(b.Numbers, "shown: "+ratioLine(stat("max/median", t, p, c, p, maxMedOf, true)))
	}
	subs := []SubClaim{a, b, persistenceClaim(t, c), growthClaim(t)}
	f.SubClaims = subs
	for _, s := range subs {
		f.Numbers = append(f.Numbers, s.lines()...)
	}
	judged := []probes.Probe{probes.RdistVar, probes.RdistMu, probes.GMu, probes.GVar}
	f.Numbers = append(f.Numbers, "steps skipped (start-up window, mean over seeds): "+windowsLine(t, judged...)+"; "+windowsLine(c, judged...))
	f.Numbers = append(f.Numbers, besideLines(t, judged...)...)
	f.Numbers = append(f.Numbers, besideLines(c, judged...)...)
	f.Numbers = append(f.Numbers, outlierBatchLines(t, probes.RdistVar, probes.GMu, probes.GVar)...)
	f.Numbers = append(f.Numbers, outlierBatchLines(c, probes.RdistVar, probes.GMu, probes.GVar)...)
	f.Verdict, f.Reason = verdictOf(a, b)
	if t.seeds() < MinSeeds || c.seeds() < MinSeeds {
		f.Verdict, f.Reason = NotMeasurable, fewSeedsReason
	}
	f.Reason += fmt.Sprintf("; judged on the first norm layer, %s (%s) and %s (%s); steps skipped: %s and %s",
		t.layerName(), t.label(), c.layerName(), c.label(), skippedShort(t, judged...), skippedShort(c, judged...))
	return f
}

// skippedShort is the windows of a side for the verdict line: "rdist_var
// 1-143, rdist_mu 1-60" (probes without a window left out), or "none".
func skippedShort(s side, ps ...probes.Probe) string {
	var parts []string
	for _, p := range ps {
		if pa := s.probe(p); pa.Skipped > 0 {
			parts = append(parts, p.String()+" "+windowText(pa.Window))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// pairScore prefers docs/findings.md's pair for (iii): both with the
// layer-scale step, then equal groups options.
func pairScore(bn, pn *Group) int {
	s := 0
	gb, gp := specOption(bn.Spec, "groups"), specOption(pn.Spec, "groups")
	if gb == "1" && gp == "1" {
		s += 4
	}
	if gb == gp {
		s += 2
	}
	if bn.Warmup.Rate > 0 && math.Abs(bn.Warmup.Rate-pn.Warmup.Rate) < 1e-12 {
		s++
	}
	return s
}

// psi2Pair picks (iii)'s batchnorm and pn-v groups of one model.
func psi2Pair(groups []*Group, model string) (bn, pn *Group) {
	best := -1
	for _, b := range groups {
		if b.Model != model || b.Name != bnName {
			continue
		}
		for _, p := range groups {
			if p.Model != model || p.Name != pnvName {
				continue
			}
			if s := pairScore(b, p); s > best {
				best, bn, pn = s, b, p
			}
		}
	}
	return bn, pn
}

func findingPsi2(groups []*Group, models []string) Finding {
	f := Finding{ID: "iii", Claim: "Shen et al. 2020 (PowerNorm), Fig. 4: ψ² is steadier than σ², and g_ψ² has fewer outliers than g_σ² (docs/findings.md (iii): batchnorm vs pn-v in the first norm layer, same EMA rate; supported when (iii-a) and (iii-b) hold)."}
	for _, m := range models {
		bg, pg := psi2Pair(groups, m)
		if bg == nil {
			continue
		}
		bn, pn := side{bg, firstNormLayer}, side{pg, firstNormLayer}
		f.Model = m + " " + bn.layerName() + ": " + bg.Spec + " vs " + pg.Spec
		a := subClaim("iii-a", "p99/median of rdist_psi2 (pn-v) ≥ 2× smaller than of rdist_var (batchnorm)", []comparison{
			stat("p99/median", bn, probes.RdistVar, pn, probes.RdistPsi2, p99Of, true),
		}, 2)
		b := subClaim("iii-b", "outlier rate and max/median of g_psi2 ≥ 2× smaller than of g_var", []comparison{
			stat("outliers per 1k steps", bn, probes.GVar, pn, probes.GPsi2, outliersOf, true),
			stat("max/median", bn, probes.GVar, pn, probes.GPsi2, maxMedOf, true),
		}, 2)
		f.SubClaims = []SubClaim{a, b}
		f.Numbers = append(a.lines(), b.lines()...)
		f.Numbers = append(f.Numbers, rateLine(bg, pg))
		f.Numbers = append(f.Numbers, "steps skipped (start-up window, mean over seeds): "+windowsLine(bn, probes.RdistVar, probes.GVar)+"; "+windowsLine(pn, probes.RdistPsi2, probes.GPsi2))
		f.Numbers = append(f.Numbers, besideLines(bn, probes.RdistVar, probes.GVar)...)
		f.Numbers = append(f.Numbers, besideLines(pn, probes.RdistPsi2, probes.GPsi2)...)
		f.Numbers = append(f.Numbers, outlierBatchLines(bn, probes.RdistVar, probes.GVar)...)
		f.Numbers = append(f.Numbers, outlierBatchLines(pn, probes.RdistPsi2, probes.GPsi2)...)
		f.Verdict, f.Reason = verdictOf(a, b)
		if rl := rateLine(bg, pg); !strings.HasSuffix(rl, "same rate") {
			f.Reason += "; the rdist comparison is not at one EMA rate (see the rates above)"
		}
		f.Reason += fmt.Sprintf("; judged on the first norm layer, %s; steps skipped: %s: %s; %s: %s",
			bn.layerName(), bg.Spec, skippedShort(bn, probes.RdistVar), pg.Spec, skippedShort(pn, probes.RdistPsi2))
		return f
	}
	f.Verdict, f.Reason = NotMeasurable, "needs batchnorm and pn-v in one model's runs (docs/findings.md: batchnorm:groups=1 and pn-v:groups=1 at the same EMA rate)"
	return f
}

// rateLine says whether the two running statistics move at one rate (1 − α
// = m), as docs/findings.md (iii) requires.
func rateLine(bn, pn *Group) string {
	rb, rp := bn.Warmup.Rate, pn.Warmup.Rate
	s := fmt.Sprintf("EMA rates: %s momentum m = %s, %s 1−α = %s", bn.Spec, fmtNum(rb), pn.Spec, fmtNum(rp))
	switch {
	case !(rb > 0) || !(rp > 0):
		return s + ": a rate is unknown (a spec this build cannot parse)"
	case math.Abs(rb-rp) > 1e-12:
		return s + fmt.Sprintf(": rate-mismatched (docs/findings.md asks for 1−α = m: pn-v:alpha=%s)", fmtNum(1-rb))
	}
	return s + ": same rate"
}
