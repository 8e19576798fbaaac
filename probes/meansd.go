package probes

import "math"

// MeanSD is a value over seeds (replicates): the mean and the sample
// standard deviation of the finite values, as the dashboard's ranking, the
// Summary screen and the report show them ("mean ± sd").
type MeanSD struct {
	Mean float64 // NaN when no value is finite
	// SD is the sample standard deviation (n−1 in the denominator). It is
	// NaN, undefined, for fewer than two values: one seed has no spread,
	// and a fake 0 would read as "no noise" in the 2·SE rule.
	SD      float64
	N       int // finite values
	Missing int // NaN or ±Inf values left out
}

// NewMeanSD summarises xs; non-finite values are left out and counted in
// Missing.
func NewMeanSD(xs []float64) MeanSD {
	a := MeanSD{Mean: math.NaN(), SD: math.NaN()}
	var sum float64
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			a.Missing++
			continue
		}
		sum += x
		a.N++
	}
	if a.N == 0 {
		return a
	}
	a.Mean = sum / float64(a.N)
	if a.N > 1 {
		var ss float64
		for _, x := range xs {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				d := x - a.Mean
				ss += d * d
			}
		}
		a.SD = math.Sqrt(ss / float64(a.N-1))
	}
	return a
}

// Format prints a as "mean ± sd", each part by num: Missing when no value
// exists, the mean alone for one value (its sd is undefined; the outputs
// that say how many seeds a value is over say why).
func (a MeanSD) Format(num func(float64) string) string { return a.FormatWith(num, num) }

// FormatWith is Format with separate printers for the mean and the spread
// (a metric's spread is in percentage points: Metric.FormatSD).
func (a MeanSD) FormatWith(mean, sd func(float64) string) string {
	switch {
	case a.N == 0:
		return Missing
	case a.N == 1:
		return mean(a.Mean)
	}
	return mean(a.Mean) + " ± " + sd(a.SD)
}

// MinSeeds is how many seeds each side of a comparison needs before a
// difference is judged against seed noise (docs/findings.md, "Common rules":
// ≥ 3 seeds per side).
const MinSeeds = 3

// SEDiff is the standard error of the difference of two means,
// √(s_a²/n_a + s_b²/n_b); NaN unless both have at least two values.
func SEDiff(a, b MeanSD) float64 {
	if a.N < 2 || b.N < 2 {
		return math.NaN()
	}
	return math.Sqrt(a.SD*a.SD/float64(a.N) + b.SD*b.SD/float64(b.N))
}

// Noise is how a difference of two means compares with seed noise.
type Noise int

// The outcomes of NoiseOf.
const (
	NoiseUnjudged Noise = iota // a side has fewer than MinSeeds values
	NoiseWithin                // |mean_a − mean_b| ≤ 2·SE
	NoiseBeyond                // |mean_a − mean_b| > 2·SE
)

// String is the outcome as the dashboard's "vs ★ (2·SE)" column words it,
// "" when unjudged.
func (n Noise) String() string {
	switch n {
	case NoiseWithin:
		return "within noise"
	case NoiseBeyond:
		return "beyond noise"
	}
	return ""
}

// NoiseOf judges mean_a − mean_b against seed noise, docs/findings.md's common
// rule: beyond noise when |mean_a − mean_b| > 2·SE (SEDiff), with at least
// MinSeeds values on each side; a zero difference is always within noise.
func NoiseOf(a, b MeanSD) Noise {
	if a.N < MinSeeds || b.N < MinSeeds {
		return NoiseUnjudged
	}
	d, se := math.Abs(a.Mean-b.Mean), SEDiff(a, b)
	if math.IsNaN(d) || math.IsNaN(se) {
		return NoiseUnjudged
	}
	if d <= 2*se || d == 0 {
		return NoiseWithin
	}
	return NoiseBeyond
}
