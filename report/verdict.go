package report

import (
	"math"

	"github.com/normtop/normtop/probes"
)

// Verdicts of the Findings section.
const (
	Supported     = "supported"
	NotSupported  = "not supported"
	WithinNoise   = "within seed noise"
	NotMeasurable = "not measurable with this model/run"
)

// outcome is how one comparison of two variants came out.
type outcome int

const (
	missing     outcome = iota // a side has no finite replicate
	fewSeeds                   // a side has fewer than MinSeeds replicates
	withinNoise                // |difference| ≤ 2 standard errors
	asClaimed                  // beyond 2 standard errors in the claimed direction
	against                    // beyond 2 standard errors against it
)

// comparison is "a is higher (or lower) than b" over seeds.
type comparison struct {
	What   string // e.g. "train loss"
	A, B   string // the two sides' labels
	a, b   probes.MeanSD
	Higher bool // the claim: a > b (else a < b)
	// startup: in most layers side a still falls from its init after the
	// warm-up window, so its tail is the start-up, not the claim's
	// fluctuation (tail comparisons only).
	startup bool
}

// Diff is mean(a) − mean(b).
func (c comparison) Diff() float64 { return c.a.Mean - c.b.Mean }

// SE is the standard error of Diff over seeds (NaN with fewer than two
// replicates on a side).
func (c comparison) SE() float64 { return probes.SEDiff(c.a, c.b) }

// MinSeeds is docs/findings.md's "≥ 3 seeds per side": a comparison with fewer
// is not measurable.
const MinSeeds = probes.MinSeeds

// fewSeedsReason is the reason given for a comparison with too few seeds.
const fewSeedsReason = "not measurable (train with --seeds 1,2,3): fewer than 3 seeds on a side"

// outcome: beyond seed noise means |mean(a) − mean(b)| > 2·SE, with SE =
// √(s_a²/n_a + s_b²/n_b) and at least MinSeeds seeds on each side.
func (c comparison) outcome() outcome {
	switch {
	case c.a.N == 0 || c.b.N == 0:
		return missing
	case c.a.N < MinSeeds || c.b.N < MinSeeds:
		return fewSeeds
	}
	if probes.NoiseOf(c.a, c.b) != probes.NoiseBeyond {
		return withinNoise
	}
	if (c.Diff() > 0) == c.Higher {
		return asClaimed
	}
	return against
}

// combine turns a claim's comparisons into a verdict and its reason:
// supported when at least one comparison is beyond seed noise in the
// claimed direction and none beyond it against; not supported when one is
// beyond noise against the claim; within seed noise when none is beyond
// noise; not measurable when a side is missing or has a single seed.
func combine(cs []comparison) (verdict, reason string) {
	if len(cs) == 0 {
		return NotMeasurable, "the runs have none of the variants the claim compares"
	}
	var nFor, nAgainst int
	for _, c := range cs {
		switch c.outcome() {
		case missing:
			return NotMeasurable, "no finite " + c.What + " for " + c.A + " or " + c.B + " (diverged or never evaluated)"
		case fewSeeds:
			return NotMeasurable, fewSeedsReason
		case asClaimed:
			nFor++
		case against:
			nAgainst++
		}
	}
	switch {
	case nAgainst > 0 && nFor > 0:
		return NotSupported, "mixed: some differences beyond seed noise go the claimed way, others the opposite way"
	case nAgainst > 0:
		return NotSupported, "a difference beyond seed noise goes against the claim"
	case nFor > 0:
		return Supported, "beyond seed noise (difference of means > 2 standard errors over seeds)"
	}
	return WithinNoise, "every difference is within 2 standard errors over seeds"
}

// Sub-claim statuses: each sub-claim of docs/findings.md is judged on its own.
const (
	Holds       = "holds"
	DoesNotHold = "does not hold"
)

// judge is the status of a sub-claim made of comparisons, each in the
// claimed direction beyond seed noise, and (target > 0) each mean(a)/mean(b)
// at least target: Holds when all are; DoesNotHold when one goes against
// the claim beyond noise or misses its target; WithinNoise otherwise;
// NotMeasurable when a side is missing or has fewer than MinSeeds seeds.
func judge(cs []comparison, target float64) (status, reason string) {
	if len(cs) == 0 {
		return NotMeasurable, "the runs lack the variants the claim compares"
	}
	noisy := false
	for _, c := range cs {
		switch c.outcome() {
		case missing:
			return NotMeasurable, "no " + c.What + " for " + c.A + " or " + c.B
		case fewSeeds:
			return NotMeasurable, fewSeedsReason
		case against:
			return DoesNotHold, c.What + " goes against the claim beyond seed noise"
		case withinNoise:
			noisy = true
		}
	}
	if target > 0 {
		for _, c := range cs {
			if c.a.Mean == 0 && c.b.Mean == 0 {
				return DoesNotHold, c.What + ": 0 on both sides, no ratio reaches the target " + fmtNum(target) + "×"
			}
			if r := ratioOf(c.a.Mean, c.b.Mean); !(r >= target) {
				return DoesNotHold, c.What + ": ratio " + fmtNum(r) + "× is below the target " + fmtNum(target) + "×"
			}
		}
	}
	if noisy {
		return WithinNoise, "a difference is within 2 standard errors over seeds"
	}
	return Holds, "every difference beyond seed noise in the claimed direction"
}

// ratioOf is a/b for the ratios of the rules: +Inf for a positive a over a
// zero b (outliers on one side only), NaN for 0/0 or a negative b.
func ratioOf(a, b float64) float64 {
	switch {
	case b == 0 && a > 0:
		return math.Inf(1)
	case !(b > 0):
		return math.NaN()
	}
	return a / b
}
