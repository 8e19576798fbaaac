package report

import "math"

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
	oneSeed                    // a side has one replicate: no noise estimate
	withinNoise                // |difference| ≤ 2 standard errors
	asClaimed                  // beyond 2 standard errors in the claimed direction
	against                    // beyond 2 standard errors against it
)

// comparison is "a is higher (or lower) than b" over seeds.
type comparison struct {
	What   string // e.g. "train loss"
	A, B   string // the two sides' labels
	a, b   agg
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
func (c comparison) SE() float64 { return seDiff(c.a, c.b) }

// outcome: beyond seed noise means |mean(a) − mean(b)| > 2·SE, with SE =
// √(s_a²/n_a + s_b²/n_b) and at least two seeds on each side.
func (c comparison) outcome() outcome {
	switch {
	case c.a.N == 0 || c.b.N == 0:
		return missing
	case c.a.N < 2 || c.b.N < 2:
		return oneSeed
	}
	d, se := c.Diff(), c.SE()
	if math.Abs(d) <= 2*se || d == 0 {
		return withinNoise
	}
	if (d > 0) == c.Higher {
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
		case oneSeed:
			return NotMeasurable, "one seed: a difference cannot be separated from seed noise; train with --seeds 1,2,3"
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

// ratioVerdict judges a "≥ target×" claim on mean(a)/mean(b) for every pair:
// supported when each ratio reaches target (and, with ≥ 2 seeds a side, a
// exceeds b beyond seed noise), within seed noise when the ratios reach the
// target but a difference does not clear the noise, not supported when a
// ratio falls short.
func ratioVerdict(cs []comparison, target float64) (verdict, reason string) {
	if len(cs) == 0 {
		return NotMeasurable, "the runs lack the variants the claim compares"
	}
	noisy, single := false, false
	for _, c := range cs {
		switch c.outcome() {
		case missing:
			return NotMeasurable, "no " + c.What + " for " + c.A + " or " + c.B
		case oneSeed:
			single = true
		case withinNoise, against:
			noisy = true
		}
	}
	for _, c := range cs {
		if !(c.a.Mean/c.b.Mean >= target) {
			return NotSupported, "a ratio is below the target " + fmtNum(target) + "×"
		}
	}
	for _, c := range cs {
		if c.startup {
			return NotMeasurable, "the ratios reach " + fmtNum(target) + "×, but " + c.A + "'s tail is its start-up residual in most layers (see start-up above): a longer run is needed"
		}
	}
	switch {
	case noisy:
		return WithinNoise, "the ratios reach " + fmtNum(target) + "× but a difference is within 2 standard errors over seeds"
	case single:
		return Supported, "the ratios reach " + fmtNum(target) + "× (one seed: no noise estimate)"
	}
	return Supported, "the ratios reach " + fmtNum(target) + "×, beyond seed noise"
}
