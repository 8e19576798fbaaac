package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/normtop/normtop/probes"
)

// Finding (vii), docs/findings.md: on the LSTM model, layernorm against none.
//
// (vii-a) the spread of ‖h_t‖/√H over time steps: per replicate, the median
// over training of the h_norm_cv probe (docs/math.md §10: the coefficient of
// variation of ‖h_t‖₂/√H over a sequence's real steps, averaged over the
// batch) at the first LSTM layer's h site; smaller for layernorm beyond
// seed noise. h_norm's own spread over training (p99/median) is printed
// beside it, not judged.
//
// (vii-b) steps to reach the plain LSTM's final training loss: the target
// is the mean over none's seeds of its final train loss over the last 10%
// of the steps (Replicate.TrainTail); a
// replicate's count is the first step whose trailing mean over the same
// window (10% of the run's steps) is at or below the target. A replicate
// that never gets there counts as its number of steps (censored: said
// beside the numbers); fewer for layernorm beyond seed noise.
//
// Both sides need ≥ 3 seeds; the verdict is supported when both
// sub-claims hold, each sub-claim's own verdict printed with its numbers.

// lstmModel is the model name the LSTM's run files carry.
const lstmModel = "lstm"

// minSeedsVII is docs/findings.md's seed rule: a comparison is judged with ≥ 3
// seeds per side.
const minSeedsVII = 3

// The variants (vii) compares, on the lstm's h site (hSite).
const (
	lstmNormed = "layernorm"
	lstmPlain  = "none"
)

func findingLSTM(groups []*Group) Finding {
	f := Finding{ID: "vii", Claim: "Ba et al. 2016 (the tutorial, ch. 5): LayerNorm keeps an LSTM's hidden state in a stable range (smaller spread of ‖h_t‖/√H, h_norm_cv) and converges faster (fewer steps to the plain LSTM's final training loss)."}
	ln, none := pick(groups, lstmModel, lstmNormed), pick(groups, lstmModel, lstmPlain)
	if ln == nil || none == nil {
		f.Verdict, f.Reason = NotMeasurable, "needs an lstm run with none and layernorm (normtop train --model lstm --seeds 1,2,3)"
		return f
	}
	f.Model = lstmModel
	site := hSite(ln.Layers)
	if site < 0 {
		f.Verdict, f.Reason = NotMeasurable, "the lstm run has no lstm<i>.h site"
		return f
	}
	target := none.TrainTail.Mean
	a := compare(fmt.Sprintf("(vii-a) h_norm_cv at %s, median over training", ln.Layers[site]), ln, none,
		repProbe(ln, site, probes.HNormCV, psMedian), repProbe(none, site, probes.HNormCV, psMedian), false)
	sl, cl := stepsToLoss(ln, target)
	sn, cn := stepsToLoss(none, target)
	b := compare(fmt.Sprintf("(vii-b) steps to the plain LSTM's final train loss %s (trailing mean over 10%% of the steps)", fmtNum(target)), ln, none, sl, sn, false)
	va, ra := lstmVerdict(a)
	vb, rb := lstmVerdict(b)
	f.Numbers = []string{a.line() + " → " + va, b.line() + " → " + vb,
		fmt.Sprintf("  never reached (counted as the run's steps): %s %d of %d, %s %d of %d", ln.Spec, cl, len(ln.Reps), none.Spec, cn, len(none.Reps)),
		compare("h_norm at "+ln.Layers[site]+", median over training (shown, not judged)", ln, none,
			repProbe(ln, site, probes.HNorm, psMedian), repProbe(none, site, probes.HNorm, psMedian), false).line(),
		compare("h_norm p99/median over training (shown, not judged)", ln, none,
			repProbe(ln, site, probes.HNorm, psP99Med), repProbe(none, site, probes.HNorm, psP99Med), false).line(),
	}
	switch {
	case va == NotMeasurable || vb == NotMeasurable:
		f.Verdict, f.Reason = NotMeasurable, firstOf(ra, rb, va == NotMeasurable)
	case va == Supported && vb == Supported:
		f.Verdict, f.Reason = Supported, "both sub-claims beyond seed noise (difference of means > 2 standard errors over seeds)"
	case va == NotSupported || vb == NotSupported:
		f.Verdict, f.Reason = NotSupported, "a sub-claim goes against the claim beyond seed noise: "+subVerdicts(va, vb)
	default:
		f.Verdict, f.Reason = WithinNoise, "not both sub-claims beyond seed noise: "+subVerdicts(va, vb)
	}
	return f
}

func firstOf(a, b string, first bool) string {
	if first {
		return a
	}
	return b
}

func subVerdicts(va, vb string) string { return "(vii-a) " + va + ", (vii-b) " + vb }

// lstmVerdict judges one sub-claim with docs/findings.md's seed rule (≥ 3 seeds
// a side) on top of combine's.
func lstmVerdict(c comparison) (verdict, reason string) {
	if c.a.N < minSeedsVII || c.b.N < minSeedsVII {
		return NotMeasurable, fmt.Sprintf("%s: %d and %d seeds with a value; the rule needs ≥ %d a side (train with --seeds 1,2,3)", strings.SplitN(c.What, " ", 2)[0], c.a.N, c.b.N, minSeedsVII)
	}
	return combine([]comparison{c})
}

// hSite is the index of the first LSTM layer's h site, or -1.
func hSite(layers []string) int {
	for i, l := range layers {
		if strings.HasPrefix(l, "lstm") && strings.HasSuffix(l, ".h") {
			return i
		}
	}
	return -1
}

func psMedian(ps ProbeStats) float64 { return ps.Median }
func psP99Med(ps ProbeStats) float64 { return ps.P99Med() }

// repProbe aggregates over g's replicates one summary of probe p at layer
// l; a replicate without values of it gives NaN (not counted).
func repProbe(g *Group, l int, p probes.Probe, of func(ProbeStats) float64) probes.MeanSD {
	xs := make([]float64, len(g.Reps))
	for i, r := range g.Reps {
		xs[i] = math.NaN()
		if l < len(r.Layers) && r.Layers[l].Probes[p].N > 0 {
			xs[i] = of(r.Layers[l].Probes[p])
		}
	}
	return probes.NewMeanSD(xs)
}

// stepsToLoss aggregates, over g's replicates, the first step at which the
// trailing mean of the train loss over a tenth of the run reaches target,
// and counts the replicates that never do (they count as their number of
// steps). A diverged replicate gives no value.
func stepsToLoss(g *Group, target float64) (a probes.MeanSD, never int) {
	xs := make([]float64, len(g.Reps))
	for i, r := range g.Reps {
		xs[i] = math.NaN()
		if r.Standing.Diverged() || len(r.TrainLoss) == 0 || math.IsNaN(target) {
			continue
		}
		s, ok := firstBelow(r.TrainLoss, target)
		xs[i] = float64(s)
		if !ok {
			never++
		}
	}
	return probes.NewMeanSD(xs), never
}

// firstBelow is the 1-based step at which the trailing mean of losses over
// w = max(1, n/10) steps (fewer at the start: the mean of what there is)
// first falls to target or below; (n, false) when it never does.
func firstBelow(losses []float32, target float64) (step int, ok bool) {
	n := len(losses)
	w := max(1, n/10)
	var sum float64
	for i, x := range losses {
		sum += float64(x)
		if i >= w {
			sum -= float64(losses[i-w])
		}
		if sum/float64(min(i+1, w)) <= target {
			return i + 1, true
		}
	}
	return n, false
}
