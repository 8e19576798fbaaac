package report

import "slices"

// outlierSteps returns the steps of the outliers among vals[from:]: a value
// over OutlierFactor × the median of the judged values (index ≥ from) at the
// previous OutlierSteps steps, [s − OutlierSteps, s − 1]. A value with no
// judged value before it in that range, or whose median is 0 (a shadow
// distance's first value, γ − 1 at init: "10× 0" would make every positive
// value an outlier), is not judged.
//
// Most values of most series are nowhere near 10× their median, and the
// window's minimum (a sliding-minimum deque, O(1) a value) proves it: a
// value ≤ 10 × the minimum is ≤ 10 × the median. Only the others need the
// median, found by selection on a copy of the window. A series where that
// happens often (heavy tails, values spread over a decade) switches, for
// the rest of it, to a window kept sorted (a binary search and a shift a
// value), which costs less there.
func outlierSteps(vals []float32, steps *stepSeq, from int) []int {
	var out []int
	var mins []int       // indices of the window's values, their values increasing
	var sorted []float32 // the window, sorted, once the series switched
	buf := make([]float32, 0, OutlierSteps)
	slow := 0
	oldest := from
	for i := from; i < len(vals); i++ {
		s := steps.at(i)
		for oldest < i && steps.at(oldest) < s-OutlierSteps {
			if sorted != nil {
				sorted = removeSorted(sorted, vals[oldest])
			}
			oldest++
		}
		v := float64(vals[i])
		med := -1.0
		switch {
		case oldest == i: // nothing before it in range
		case sorted != nil:
			med = sortedMedian(sorted)
		default:
			for mins[0] < oldest {
				mins = mins[1:]
			}
			if v > OutlierFactor*float64(vals[mins[0]]) {
				buf = append(buf[:0], vals[oldest:i]...)
				med = selectMedian(buf)
				if slow++; 8*slow > i-from+64 {
					sorted = slices.Clone(vals[oldest:i])
					slices.Sort(sorted)
				}
			}
		}
		if med > 0 && v > OutlierFactor*med {
			out = append(out, s)
		}
		if sorted != nil {
			sorted = insertSorted(sorted, vals[i])
			continue
		}
		for len(mins) > 0 && vals[mins[len(mins)-1]] >= vals[i] {
			mins = mins[:len(mins)-1]
		}
		mins = append(mins, i)
	}
	return out
}

// sortedMedian is the median of sorted values (the mean of the two middle
// ones for an even count, as quantile's type 7 gives it).
func sortedMedian(a []float32) float64 {
	n := len(a)
	return (float64(a[(n-1)/2]) + float64(a[n/2])) / 2
}

// selectMedian is sortedMedian of a's values, by selection; it permutes a.
func selectMedian(a []float32) float64 {
	n := len(a)
	k := (n - 1) / 2
	selectK(a, k)
	hi := a[k]
	if n%2 == 0 {
		hi = a[k+1]
		for _, x := range a[k+2:] {
			hi = min(hi, x)
		}
	}
	return (float64(a[k]) + float64(hi)) / 2
}

func insertSorted(a []float32, v float32) []float32 {
	k := lowerBound(a, v)
	a = append(a, 0)
	copy(a[k+1:], a[k:])
	a[k] = v
	return a
}

func removeSorted(a []float32, v float32) []float32 {
	if k := lowerBound(a, v); k < len(a) && a[k] == v {
		return append(a[:k], a[k+1:]...)
	}
	return a
}

// lowerBound is the first index of sorted a whose value is ≥ v. The values
// are finite (summarised series hold no NaN), so a plain comparison does:
// slices.BinarySearch's NaN-aware one costs twice as much here.
func lowerBound(a []float32, v float32) int {
	lo, hi := 0, len(a)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
