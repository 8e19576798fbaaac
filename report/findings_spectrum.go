package report

import (
	"fmt"
	"strings"

	"github.com/normtop/normtop/probes"
)

// RankMoveLimit: an effective rank that moved by more than this fraction
// over the last quarter of the run has not settled (docs/findings.md iv: "still
// moving").
const RankMoveLimit = 0.01

// findingSpectrum judges docs/findings.md (iv): PowerNorm (pn-v when the runs
// have no powernorm) against layernorm, on σ_k/σ_1 at k = d/4, d/2, 3d/4 and
// the mean of σ_k/σ_1 over all k of the last spectrum per seed. Supported
// when PN's values are higher beyond seed noise at the mean and at ≥ 2 of
// the 3 k. Beside the verdict: whether the spectra had settled.
func findingSpectrum(groups []*Group, models []string) Finding {
	f := Finding{ID: "iv", Claim: "Shen et al. 2020 (PowerNorm), Fig. 6: PN's embedding spectrum decays more slowly than LN's (docs/findings.md (iv): σ_k/σ_1 higher at the mean over k and at ≥ 2 of k = d/4, d/2, 3d/4)."}
	for _, m := range models {
		ln := pick(groups, m, "layernorm")
		pn := pick(groups, m, "powernorm")
		if pn == nil {
			pn = pick(groups, m, "pn-v")
		}
		if ln == nil || pn == nil {
			continue
		}
		f.Model = m + ": " + pn.Spec + " vs " + ln.Spec
		if ln.EffRank.N == 0 || pn.EffRank.N == 0 {
			f.Verdict, f.Reason = NotMeasurable, "no embedding spectrum recorded ("+m+" has no embedding matrix, or the spectrum probe was off)"
			return f
		}
		mean := compare("mean of σ_k/σ_1 over all k", pn, ln, pn.SigmaMean, ln.SigmaMean, true)
		ks := []comparison{
			compare(fmt.Sprintf("σ_k/σ_1 at k = d/4 (d = %d)", pn.D), pn, ln, pn.SigmaQuarter, ln.SigmaQuarter, true),
			compare(fmt.Sprintf("σ_k/σ_1 at k = d/2 (d = %d)", pn.D), pn, ln, pn.SigmaHalf, ln.SigmaHalf, true),
			compare(fmt.Sprintf("σ_k/σ_1 at k = 3d/4 (d = %d)", pn.D), pn, ln, pn.SigmaThreeQuarter, ln.SigmaThreeQuarter, true),
		}
		f.Numbers = append([]string{mean.line()}, linesOf(ks)...)
		f.Numbers = append(f.Numbers, "shown: "+compare("effective rank", pn, ln, pn.EffRank, ln.EffRank, true).line())
		f.Verdict, f.Reason = spectrumVerdict(mean, ks)
		moving := movingLine(pn, ln)
		f.Numbers = append(f.Numbers, moving)
		f.Reason += "; last spectrum per seed (step " + fmt.Sprint(pn.SpectrumStep) + "); " + moving
		return f
	}
	f.Verdict, f.Reason = NotMeasurable, "needs layernorm and powernorm (or pn-v) in a model with an embedding (transformer)"
	return f
}

// spectrumVerdict: supported when the mean and ≥ 2 of the 3 k are higher
// for PN beyond seed noise; not supported when the mean, or 2 of the k, go
// the other way beyond it (or neither rule can be met any more); within
// seed noise otherwise.
func spectrumVerdict(mean comparison, ks []comparison) (verdict, reason string) {
	all := append([]comparison{mean}, ks...)
	for _, c := range all {
		switch c.outcome() {
		case missing:
			return NotMeasurable, "no " + c.What + " for " + c.A + " or " + c.B
		case fewSeeds:
			return NotMeasurable, fewSeedsReason
		}
	}
	higher := 0
	for _, c := range ks {
		if c.outcome() == asClaimed {
			higher++
		}
	}
	notHigher := 0
	for _, c := range ks {
		if c.outcome() == against {
			notHigher++
		}
	}
	what := fmt.Sprintf("PN higher beyond seed noise at %d of the 3 k", higher)
	switch {
	case mean.outcome() == asClaimed && higher >= 2:
		return Supported, what + " and at the mean over k"
	case mean.outcome() == against || notHigher >= 2:
		return NotSupported, what + "; the mean over k " + outcomeWord(mean.outcome())
	}
	return WithinNoise, what + "; the mean over k " + outcomeWord(mean.outcome())
}

func outcomeWord(o outcome) string {
	switch o {
	case asClaimed:
		return "higher beyond seed noise"
	case against:
		return "lower beyond seed noise"
	}
	return "within seed noise"
}

// movingLine says whether the spectra had settled: the effective rank over
// the last quarter of the run moving by more than RankMoveLimit in a seed is
// "still moving".
func movingLine(gs ...*Group) string {
	var parts []string
	moving, unknown := false, false
	for _, g := range gs {
		v := g.RankMove
		switch {
		case v != v: // NaN: fewer than two spectra in the last quarter
			unknown = true
			parts = append(parts, g.Spec+" "+probes.Missing)
		default:
			moving = moving || v > RankMoveLimit
			parts = append(parts, fmt.Sprintf("%s %.2f%%", g.Spec, 100*v))
		}
	}
	detail := " (effective rank's largest move over the last quarter among the seeds: " + strings.Join(parts, ", ") + ")"
	switch {
	case moving:
		return "still moving" + detail
	case unknown:
		return "settling unknown: fewer than 2 spectra in the last quarter of the run" + detail
	}
	return "settled (moves ≤ 1%)" + detail
}
