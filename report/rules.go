package report

import (
	"math"
	"sort"

	"github.com/normtop/normtop/probes"
)

// The common rules of docs/findings.md, on one probe series of one layer of
// one replicate (values in step order, each with its training step):
//
//   - Start-up: a distance to a running statistic that starts from a fixed
//     init is judged only from the first step t with
//     (1−m)^t · dist(1) < median of the distance over the second half of the
//     run (m the statistic's rate, dist(1) its first value). docs/math.md §5
//     adds that summaries skip the longer of this and the ⌈3/m⌉ warm-up.
//   - Outliers: a value over OutlierFactor × the median of the same probe's
//     judged values over the previous OutlierSteps steps (a positive median:
//     over a median of 0 nothing is judged).
//   - Quarters: the last quarter of the run is steps (T − ⌊T/4⌋, T]; the
//     first quarter after the window is steps (w, w + ⌊T/4⌋], of the same
//     length, so a ratio of their outlier counts is a ratio of rates.
const (
	OutlierFactor = 10
	OutlierSteps  = 100
)

// stepSeq holds the steps of a series' values. A series measured at a fixed
// interval (the usual case) is an arithmetic progression and costs three
// integers; the slice is made only when a step breaks the progression.
type stepSeq struct {
	first, stride int
	n             int
	steps         []int32 // nil while the steps are first + i·stride
	// hint is the series' expected length (the index's count, presize):
	// the slice's capacity when it is made, so that a long series' steps
	// are not grown by doubling, each old array garbage the size of the
	// values themselves.
	hint int
}

func (s *stepSeq) add(step int) {
	switch {
	case s.steps != nil:
		s.steps = append(s.steps, int32(step))
	case s.n == 0:
		s.first = step
	case s.n == 1:
		s.stride = step - s.first
	case step != s.first+s.n*s.stride:
		s.steps = make([]int32, s.n, max(s.n+s.n/4+16, s.hint))
		for i := range s.steps {
			s.steps[i] = int32(s.first + i*s.stride)
		}
		s.steps = append(s.steps, int32(step))
	}
	s.n++
}

// at is the step of value i.
func (s *stepSeq) at(i int) int {
	if s.steps != nil {
		return int(s.steps[i])
	}
	return s.first + i*s.stride
}

// appendSeq appends o's steps.
func (s *stepSeq) appendSeq(o *stepSeq) {
	for i := 0; i < o.n; i++ {
		s.add(o.at(i))
	}
}

// firstAfter is the index of the first value whose step is > w (n when
// none): the values are in step order.
func (s *stepSeq) firstAfter(w int) int {
	return sort.Search(s.n, func(i int) bool { return s.at(i) > w })
}

// residualWindow is the Start-up rule's window: the last step before the
// first step t with (1−rate)^t · dist(1) < the median of the values at steps
// > last/2 (0 when t = 1, last when no step of the run qualifies). vals are
// in step order; dist(1) is the first value.
func residualWindow(vals []float32, steps *stepSeq, rate float64, last int) int {
	if len(vals) == 0 || !(rate > 0) {
		return 0
	}
	d1 := float64(vals[0])
	from := steps.firstAfter(last / 2)
	half := append([]float32(nil), vals[from:]...)
	med := median(half)
	switch {
	case !(med > 0):
		return last // the residual never falls below a zero (or unknown) median
	case !(d1 > med) || rate >= 1:
		return 0
	}
	// (1−m)^t·d1 < med ⟺ t > ln(med/d1)/ln(1−m); the first such t.
	x := math.Log(med/d1) / math.Log1p(-rate)
	t := int(math.Floor(x)) + 1
	for t > 1 && math.Pow(1-rate, float64(t-1))*d1 < med { // guard the rounding of x
		t--
	}
	for math.Pow(1-rate, float64(t))*d1 >= med {
		t++
	}
	return min(t-1, last)
}

// startupWindows are the windows of one layer's probes (indexed by
// probes.Probe): for a distance to the layer's own running statistic
// (w.Applies), the longer of the ⌈3/m⌉ warm-up (docs/math.md §5) and the
// Start-up rule's residual window; 0 for every other probe. The rule is
// written on the plain distance dist (docs/findings.md: "(1−m)^t · dist(1)"),
// whose residual decays as (1−m)^t: the window is the running statistic's,
// found on its dist_* series, and holds for every probe measured against
// that statistic. A relative distance's residual does not decay so: its
// denominator is the decaying statistic itself (with ψ²_B ≈ 10⁻³ and an
// init of 1, rdist_psi2 stays near 1 until (1−m)^t ≈ 10⁻³), so its own
// series would end the window far too early. rdist_var and rdist_psi2 take
// the window of dist_var and dist_psi2; rdist_mu, over ‖σ‖, the longer of
// dist_mu's and dist_var's. A relative distance without its plain one (a
// file that recorded only it) falls back on its own series.
func startupWindows(layer []seriesAcc, w probes.Warmup, last int) (out [probes.NumProbes]int) {
	own := func(p probes.Probe) int {
		if int(p) >= len(layer) || len(layer[p].vals) == 0 {
			return -1
		}
		return residualWindow(layer[p].vals, &layer[p].steps, w.Rate, last)
	}
	plain := map[probes.Probe]int{probes.DistMu: own(probes.DistMu), probes.DistVar: own(probes.DistVar), probes.DistPsi2: own(probes.DistPsi2)}
	from := map[probes.Probe][]probes.Probe{
		probes.DistMu: {probes.DistMu}, probes.DistVar: {probes.DistVar}, probes.DistPsi2: {probes.DistPsi2},
		probes.RdistMu: {probes.DistMu, probes.DistVar}, probes.RdistVar: {probes.DistVar}, probes.RdistPsi2: {probes.DistPsi2},
	}
	for p, srcs := range from {
		if !w.Applies(p) {
			continue
		}
		res := -1
		for _, q := range srcs {
			if w.Applies(q) {
				res = max(res, plain[q])
			}
		}
		if res < 0 {
			res = max(own(p), 0)
		}
		out[p] = max(w.Steps, res)
	}
	return out
}

// quarters are the step ranges of the persistence and growth rules.
type quarters struct{ firstLo, firstHi, lastLo, lastHi int } // (lo, hi]

func quartersOf(window, last int) quarters {
	q := last / 4
	return quarters{firstLo: window, firstHi: window + q, lastLo: last - q, lastHi: last}
}

func (q quarters) inFirst(step int) bool { return step > q.firstLo && step <= q.firstHi }
func (q quarters) inLast(step int) bool  { return step > q.lastLo && step <= q.lastHi }

// stepTrend is the growth rule: the median of the values in the last
// quarter of the run over the median of those in the first quarter after
// the window. NaN when a quarter is empty or its median is not positive.
func stepTrend(vals []float32, steps *stepSeq, from int, q quarters) float64 {
	var first, lastQ []float32
	for i := from; i < len(vals); i++ {
		s := steps.at(i)
		if q.inFirst(s) {
			first = append(first, vals[i])
		}
		if q.inLast(s) {
			lastQ = append(lastQ, vals[i])
		}
	}
	if len(first) == 0 || len(lastQ) == 0 {
		return math.NaN()
	}
	l := median(lastQ)
	if !(l >= 0) {
		return math.NaN()
	}
	return ratio(l, median(first))
}
