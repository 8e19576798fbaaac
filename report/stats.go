package report

import "math"

// The order statistics of the report are exact: the values of a series are
// kept (as float32, half the memory of the float64 they were recorded as;
// the probes' low mantissa bits are reduction noise) and the ranks needed are
// found by selection, not by sorting, so a summary costs a few linear passes
// over each series.

// quantile returns the q-quantile (0 ≤ q ≤ 1) of a by linear interpolation
// between the closest ranks (Hyndman and Fan's type 7, numpy's default): the
// value at rank h = (n−1)q, interpolated between ⌊h⌋ and ⌊h⌋+1. It permutes
// a. NaN when a is empty.
func quantile(a []float32, q float64) float64 { return quantiles(a, q)[0] }

// quantiles returns several quantiles of a, qs ascending, in one pass of
// selections: each selection leaves the ranks below it to its left, so the
// next one searches only the part to the right. It permutes a.
func quantiles(a []float32, qs ...float64) []float64 {
	out := make([]float64, len(qs))
	n := len(a)
	from := 0
	for i, q := range qs {
		if n == 0 {
			out[i] = math.NaN()
			continue
		}
		h := float64(n-1) * q
		lo := min(int(math.Floor(h)), n-1)
		if lo >= from {
			selectK(a[from:], lo-from)
			from = lo
		}
		x := float64(a[lo])
		if frac := h - float64(lo); frac > 0 && lo+1 < n {
			// a[lo+1:] holds the values ≥ a[lo]; the next rank is their minimum.
			next := a[lo+1]
			for _, v := range a[lo+2:] {
				if v < next {
					next = v
				}
			}
			x += frac * (float64(next) - x)
		}
		out[i] = x
	}
	return out
}

// median is quantile(a, 0.5).
func median(a []float32) float64 { return quantile(a, 0.5) }

// selectK permutes a so that a[k] is the value of rank k (0-based), every
// value before it ≤ a[k] and every value after it ≥ a[k] (quickselect,
// median-of-three pivot, expected linear time).
func selectK(a []float32, k int) {
	lo, hi := 0, len(a)-1
	for hi > lo {
		if hi-lo < 16 {
			insertionSort(a[lo : hi+1])
			return
		}
		mid := lo + (hi-lo)/2
		// Median of three, moved to a[mid].
		if a[mid] < a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[mid] {
			a[hi], a[mid] = a[mid], a[hi]
		}
		p := a[mid]
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		// Now a[lo..j] ≤ p ≤ a[i..hi], and a[j+1..i-1] == p.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

func insertionSort(a []float32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// maxOf is the largest value of a, NaN when a is empty.
func maxOf(a []float32) float64 {
	if len(a) == 0 {
		return math.NaN()
	}
	m := a[0]
	for _, v := range a[1:] {
		if v > m {
			m = v
		}
	}
	return float64(m)
}

// slope is the least-squares slope of ys against xs; NaN with fewer than
// two distinct xs.
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if len(xs) < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= n
	my /= n
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return math.NaN()
	}
	return sxy / sxx
}
