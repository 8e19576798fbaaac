package tui

import (
	"math"
	"strconv"
	"strings"
)

// axis is a chart's value axis: the bounds the plot spans (expanded to the
// outer round ticks, so the top and bottom rows carry a label) and the
// ticks with their labels, all formatted alike.
type axis struct {
	lo, hi float64
	ticks  []float64 // in plot space (log10 of the value on a log axis)
	labels []string
}

// niceSteps are the mantissas of tick steps: 1-2-5 in every decade.
var niceSteps = [...]float64{1, 2, 5}

// niceStep is the smallest 1-2-5 step ≥ raw.
func niceStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range niceSteps {
		if m*mag >= raw*(1-1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

// linearAxis chooses at most maxTicks (2..6) round ticks over [lo, hi] with
// a 1-2-5 step and expands the bounds to the outer ticks. A flat or empty
// range is widened so that it still gets a scale.
func linearAxis(lo, hi float64, maxTicks int) axis {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		lo, hi = 0, 1
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	// A range below float precision (a constant series smoothed to values
	// a rounding apart) is flat: ticks at that scale never converge.
	if hi-lo <= 1e-9*math.Max(math.Abs(lo), math.Abs(hi)) {
		hi = lo
	}
	if hi == lo {
		d := math.Abs(lo) * 0.1
		if d == 0 {
			d = 1
		}
		lo, hi = lo-d, hi+d
	}
	maxTicks = min(max(maxTicks, 2), 6)
	step := niceStep((hi - lo) / float64(maxTicks-1))
	var k0, k1 float64
	for {
		k0, k1 = math.Floor(lo/step+1e-9), math.Ceil(hi/step-1e-9)
		if int(k1-k0)+1 <= maxTicks {
			break
		}
		step = niceStep(step * 1.0001)
	}
	a := axis{lo: k0 * step, hi: k1 * step}
	for k := k0; k <= k1; k++ {
		a.ticks = append(a.ticks, k*step)
	}
	a.labels = tickLabels(a.ticks, step)
	return a
}

// tickLabels formats linear ticks alike: the decimals the step needs, or,
// for very large or very small values, scientific notation with the same
// mantissa digits ("2.0e-4", "1.0e-3").
func tickLabels(ticks []float64, step float64) []string {
	big := 0.0
	for _, t := range ticks {
		big = math.Max(big, math.Abs(t))
	}
	out := make([]string, len(ticks))
	stepExp := int(math.Floor(math.Log10(step) + 1e-9))
	if big >= 1e5 || step < 1e-3 {
		// Scientific notation, every label with the mantissa digits the
		// step needs at the largest exponent: 5.0e-7 1.0e-6 1.5e-6.
		dec := 0
		for _, t := range ticks {
			if t != 0 {
				dec = max(dec, int(math.Floor(math.Log10(math.Abs(t))+1e-9))-stepExp)
			}
		}
		for i, t := range ticks {
			if math.Abs(t) < step*1e-6 {
				out[i] = "0"
				continue
			}
			mant, exp, _ := strings.Cut(strconv.FormatFloat(t, 'e', dec, 64), "e")
			e, _ := strconv.Atoi(exp)
			out[i] = mant + "e" + strconv.Itoa(e)
		}
		return out
	}
	dec := max(0, -stepExp)
	for i, t := range ticks {
		if math.Abs(t) < step*1e-6 {
			t = 0 // -0.0 and float dust print as 0
		}
		out[i] = strconv.FormatFloat(t, 'f', dec, 64)
	}
	return out
}

// logAxis chooses ticks for values plotted as log10 (lo, hi are log10 of
// the data range). Spanning 1.5 decades or more, the ticks are whole
// decades (every 2nd or 3rd when many) and the bounds expand to decades;
// over a narrower range they are the 1-2-5 values of each decade, or
// round linear values, so a label is always a real value (1e-3, 0.01, 0.1,
// 1, 10; 0.5 1.0 2.0; 2 3 4), never "1e0.6".
func logAxis(lo, hi float64, maxTicks int) axis {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		lo, hi = 0, 1
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	maxTicks = min(max(maxTicks, 2), 6)
	if hi-lo >= 1.5 {
		k0, k1 := math.Floor(lo+1e-9), math.Ceil(hi-1e-9)
		n := int(k1-k0) + 1
		every := (n + maxTicks - 1) / maxTicks
		k0 = math.Floor(k0/float64(every)) * float64(every)
		k1 = math.Ceil(k1/float64(every)) * float64(every)
		a := axis{lo: k0, hi: k1}
		for k := k0; k <= k1; k += float64(every) {
			a.ticks = append(a.ticks, k)
			a.labels = append(a.labels, decadeLabel(int(k)))
		}
		return a
	}
	// Under 1.5 decades: 1-2-5 values of each decade when three or more
	// fall in the range (a log axis's own rhythm: 0.5 1 2), else round
	// linear values.
	var cand []float64
	for k := math.Floor(lo) - 1; k <= math.Ceil(hi); k++ {
		for _, m := range niceSteps {
			if t := math.Log10(m) + k; t >= lo-1e-9 && t <= hi+1e-9 {
				cand = append(cand, t)
			}
		}
	}
	if len(cand) >= 3 && len(cand) <= maxTicks {
		a := axis{lo: lo, hi: hi, ticks: cand}
		dec := max(0, int(-math.Floor(cand[0]+1e-9)))
		for _, t := range cand {
			a.labels = append(a.labels, strconv.FormatFloat(math.Pow(10, t), 'f', dec, 64))
		}
		return a
	}
	lin := linearAxis(math.Pow(10, lo), math.Pow(10, hi), maxTicks)
	a := axis{lo: lo, hi: hi}
	for i, t := range lin.ticks {
		if t <= 0 {
			continue
		}
		a.ticks = append(a.ticks, math.Log10(t))
		a.labels = append(a.labels, lin.labels[i])
	}
	if len(a.ticks) > 0 {
		a.lo = math.Min(a.lo, a.ticks[0])
		a.hi = math.Max(a.hi, a.ticks[len(a.ticks)-1])
	}
	return a
}

// decadeLabel is 10^k written as a person would: 0.01 … 1000 plainly,
// 1e-3 and 1e4 beyond.
func decadeLabel(k int) string {
	if k >= -2 && k <= 3 {
		return strconv.FormatFloat(math.Pow(10, float64(k)), 'f', -1, 64)
	}
	return "1e" + strconv.Itoa(k)
}

// stepTicks chooses round step numbers for the x axis inside [lo, hi]
// (not expanded: the x range is exactly what is shown).
func stepTicks(lo, hi, maxTicks int) []int {
	if hi <= lo || maxTicks < 2 {
		return []int{lo}
	}
	step := max(int(math.Round(niceStep(float64(hi-lo)/float64(maxTicks-1)))), 1)
	for (hi/step)-((lo+step-1)/step)+1 > maxTicks {
		step = max(int(math.Round(niceStep(float64(step)*1.0001))), step+1)
	}
	var out []int
	for k := (lo + step - 1) / step * step; k <= hi; k += step {
		out = append(out, k)
	}
	if len(out) < 2 && step > 1 {
		// A nice step as wide as the range leaves a small chart (the
		// Grid's, 2 ticks over 1..600: step 1000) with no step axis: the
		// next smaller nice step labels at least two steps.
		if finer := stepTicks(lo, hi, maxTicks+1); len(finer) > len(out) {
			return finer
		}
	}
	return out
}

// fmtStep writes a step number compactly for axis labels (1500, 12k, 1.5M).
func fmtStep(n int) string {
	switch {
	case n >= 1_000_000 && n%100_000 == 0:
		return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + "M"
	case n >= 10_000 && n%100 == 0:
		return strconv.FormatFloat(float64(n)/1e3, 'f', -1, 64) + "k"
	}
	return strconv.Itoa(n)
}
