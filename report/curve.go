package report

import (
	"math"

	"github.com/normtop/normtop/probes"
)

// CurveBuckets is how many buckets a long series is thinned to for a
// figure: each bucket keeps its first, lowest, highest and last value (so a
// spike survives thinning and a line through the kept points looks like
// the whole series at a figure's resolution); a series with fewer values
// is kept whole.
const CurveBuckets = 300

// XY is one point of a figure's series.
type XY struct{ X, Y float64 }

// EvalXY is one validation evaluation of a replicate: its step, loss,
// metric and generalization gap (probes.Eval.Gap).
type EvalXY struct {
	Step              int
	Loss, Metric, Gap float64
}

// Curves are the series of one replicate that the report's figures draw,
// kept while the file is read (the report drops the values themselves):
// the train loss (thinned, and smoothed), every validation evaluation,
// and the first norm layer's probes (docs/findings.md judges that layer).
type Curves struct {
	Train       []XY // recorded train losses, thinned (true values)
	TrainSmooth []XY // the centred moving mean of the train loss (SmoothWindow values), one point per bucket
	Val         []EvalXY
	First       [probes.NumProbes][]XY // the first norm layer's probes, thinned
	// HNormCV is h_norm_cv at the first LSTM hidden-state site (finding
	// vii's quantity), thinned; nil for a model without one.
	HNormCV []XY
}

// SmoothWindow is the report's train-loss smoothing: the mean of the n/50
// values around each step (at least one).
func SmoothWindow(n int) int { return max(1, n/50) }

// curves thins what was collected into the replicate's Curves; hLayer is
// the first LSTM hidden-state site (hSite), or -1.
func (a *repAcc) curves(hLayer int) *Curves {
	c := &Curves{}
	c.Train = thin(len(a.train), CurveBuckets, func(i int) XY { return XY{float64(a.trainSteps.at(i)), float64(a.train[i])} })
	c.TrainSmooth = smoothed(len(a.train), SmoothWindow(len(a.train)), CurveBuckets, a.trainSteps.at, func(i int) float64 { return float64(a.train[i]) })
	for _, ev := range a.vals {
		c.Val = append(c.Val, EvalXY{Step: ev.step, Loss: ev.e.Loss, Metric: ev.e.Metric, Gap: ev.e.Gap()})
	}
	if len(a.series) >= int(probes.NumProbes) {
		for p := range c.First {
			s := &a.series[p]
			c.First[p] = thin(len(s.vals), CurveBuckets, func(i int) XY { return XY{float64(s.steps.at(i)), float64(s.vals[i])} })
		}
	}
	if i := hLayer*int(probes.NumProbes) + int(probes.HNormCV); hLayer >= 0 && i < len(a.series) {
		s := &a.series[i]
		c.HNormCV = thin(len(s.vals), CurveBuckets, func(i int) XY { return XY{float64(s.steps.at(i)), float64(s.vals[i])} })
	}
	return c
}

// thin keeps n points (at(i), in x order) whole when n ≤ 4·buckets, else
// the first, lowest, highest and last point of each of buckets runs of
// consecutive points, in their order.
func thin(n, buckets int, at func(i int) XY) []XY {
	if n == 0 {
		return nil
	}
	if n <= 4*buckets {
		out := make([]XY, n)
		for i := range out {
			out[i] = at(i)
		}
		return out
	}
	out := make([]XY, 0, 4*buckets)
	for b := 0; b < buckets; b++ {
		lo, hi := b*n/buckets, (b+1)*n/buckets
		if lo >= hi {
			continue
		}
		iMin, iMax := lo, lo
		vMin, vMax := at(lo).Y, at(lo).Y
		for i := lo + 1; i < hi; i++ {
			y := at(i).Y
			if y < vMin {
				iMin, vMin = i, y
			}
			if y > vMax {
				iMax, vMax = i, y
			}
		}
		keep := []int{lo, min(iMin, iMax), max(iMin, iMax), hi - 1}
		last := -1
		for _, i := range keep {
			if i != last {
				out = append(out, at(i))
				last = i
			}
		}
	}
	return out
}

// smoothed is the centred moving mean of n values (the window values
// around each, fewer at the ends), sampled at one point per bucket (every
// point when n ≤ buckets). Prefix sums make it one pass whatever the window.
func smoothed(n, window, buckets int, step func(i int) int, val func(i int) float64) []XY {
	if n == 0 {
		return nil
	}
	prefix := make([]float64, n+1)
	for i := 0; i < n; i++ {
		prefix[i+1] = prefix[i] + val(i)
	}
	mean := func(i int) float64 {
		lo := max(0, i-window/2)
		hi := min(n, lo+window)
		lo = max(0, hi-window)
		return (prefix[hi] - prefix[lo]) / float64(hi-lo)
	}
	k := min(n, buckets)
	out := make([]XY, 0, k)
	for b := 0; b < k; b++ {
		i := (b*n + n/2) / k // the middle of bucket b
		if k == n {
			i = b
		}
		out = append(out, XY{float64(step(i)), mean(i)})
	}
	return out
}

// band is the mean ± sd over seeds of several curves at the first curve's
// x (each other curve linearly interpolated there; a curve counts only
// inside its own x range). lo and hi are nil with a single curve; a point
// covered by one curve has lo = hi = its value.
func band(curves [][]XY) (mean []XY, lo, hi []float64) {
	var grid []XY
	for _, c := range curves {
		if len(c) > len(grid) {
			grid = c
		}
	}
	if len(curves) < 2 {
		return grid, nil, nil
	}
	for _, g := range grid {
		var sum, sq float64
		n := 0
		for _, c := range curves {
			if y, ok := interp(c, g.X); ok {
				sum += y
				sq += y * y
				n++
			}
		}
		m := sum / float64(n)
		sd := 0.0
		if n > 1 {
			sd = math.Sqrt(max(0, (sq-float64(n)*m*m)/float64(n-1)))
		}
		mean = append(mean, XY{g.X, m})
		lo, hi = append(lo, m-sd), append(hi, m+sd)
	}
	return mean, lo, hi
}

// interp is c's value at x by linear interpolation; false outside its x
// range.
func interp(c []XY, x float64) (float64, bool) {
	if len(c) == 0 || x < c[0].X || x > c[len(c)-1].X {
		return 0, false
	}
	lo, hi := 0, len(c)-1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if c[mid].X <= x {
			lo = mid
		} else {
			hi = mid
		}
	}
	a, b := c[lo], c[hi]
	if b.X == a.X {
		return a.Y, true
	}
	return a.Y + (b.Y-a.Y)*(x-a.X)/(b.X-a.X), true
}
