package tui

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/normtop/normtop/probes"
)

// This file groups where each variant stands (probes.Standings, fed by the
// store) by spec over seeds, for the ranking (Overview) and the Summary
// screen. It keeps no bookkeeping of its own.

// standing is one variant's (or one group of seeds') result so far.
type standing struct {
	idx     []int // variant indices: one, or every seed of a spec
	label   string
	status  probes.Status
	stopped int // step it diverged or stopped at (the first, over seeds)
	step    int
	// Final values (mean over seeds) and their spread (sd, 0 for one seed).
	metric, metricSD float64
	best             float64 // best val metric over the run (mean over seeds)
	val, train, gap  float64
	stepsPerSec      float64
	haveVal          bool
	test             float64 // latest test metric (mean over seeds), NaN when none
	alerts           []int   // outlier alerts per layer group (layerGroups order)
}

// layerGroup names the kind of site a layer is, its block index dropped:
// "block3.ln1" → "ln1", "fc2" → "fc". Alerts are counted per group.
func layerGroup(name string) string {
	if _, rest, ok := strings.Cut(name, "."); ok {
		return rest
	}
	return strings.TrimRightFunc(name, unicode.IsDigit)
}

// layerGroups lists the groups of the run's layers in first-seen order and
// maps each layer to its group.
func layerGroups(layers []string) (names []string, of []int) {
	idx := map[string]int{}
	of = make([]int, len(layers))
	for l, n := range layers {
		g := layerGroup(n)
		i, ok := idx[g]
		if !ok {
			i = len(names)
			idx[g] = i
			names = append(names, g)
		}
		of[l] = i
	}
	return names, of
}

// standings groups the variants by spec (a multi-seed run trains each spec
// under every seed: VariantMeta.Seed) and summarises each group.
func (s *store) standings() []standing {
	gnames, gof := layerGroups(s.meta.Layers)
	var out []standing
	byLabel := map[string]int{}
	for i := range s.variants {
		v := &s.variants[i]
		j, ok := byLabel[v.group]
		if !ok {
			j = len(out)
			byLabel[v.group] = j
			out = append(out, standing{label: v.group, alerts: make([]int, len(gnames))})
		}
		out[j].idx = append(out[j].idx, i)
	}
	for j := range out {
		st := &out[j]
		var metric, best, val, train, gap, sps, test []float64
		st.status = probes.Done
		for _, i := range st.idx {
			v := &s.variants[i]
			t := v.t
			st.step = max(st.step, t.Step)
			st.status = worseStatus(st.status, t.Status)
			if at := stoppedAt(t); at > 0 && (st.stopped == 0 || at < st.stopped) {
				st.stopped = at
			}
			if t.Val != nil {
				st.haveVal = true
				metric = append(metric, t.Val.Metric)
				best = append(best, v.bestMetric(s.meta.Metric))
				val = append(val, t.Val.Loss)
				gap = append(gap, t.Val.Gap())
			}
			if h := v.series(probes.SeriesTrainLoss); h != nil {
				if _, x, ok := h.Last(); ok {
					train = append(train, x)
				}
			}
			sps = append(sps, t.StepsPerSec)
			if t.Test != nil {
				test = append(test, t.Test.Metric)
			}
			for l, n := range t.Outliers {
				st.alerts[gof[l]] += n
			}
		}
		st.metric, st.metricSD = meanSD(metric)
		st.best, _ = meanSD(best)
		st.val, _ = meanSD(val)
		st.gap, _ = meanSD(gap)
		st.train, _ = meanSD(train)
		st.stepsPerSec, _ = meanSD(sps)
		st.test, _ = meanSD(test)
	}
	return out
}

// stoppedAt is the step a variant diverged or was stopped at, 0 while it
// runs or once it is done.
func stoppedAt(t *probes.VariantStanding) int {
	switch t.Status {
	case probes.Diverged:
		return t.DivergedAt
	case probes.Stopped:
		return t.Step
	}
	return 0
}

// bestMetric is the best val metric of the run so far (NaN before any):
// the extremes of the series' buckets survive every merge, so it is exact.
func (v *variantData) bestMetric(metric string) float64 {
	h := v.series(probes.SeriesValMetric)
	if h == nil {
		return math.NaN()
	}
	bs := h.View(1)
	if len(bs) == 0 {
		return math.NaN()
	}
	if metric == "accuracy" {
		return bs[0].Max
	}
	return bs[0].Min
}

// worseStatus folds a seed's status into its group's: diverged beats
// stopped beats running beats done (a group is done when every seed is).
func worseStatus(cur, s probes.Status) probes.Status {
	rank := func(s probes.Status) int {
		switch s {
		case probes.Diverged:
			return 3
		case probes.Stopped:
			return 2
		case probes.Running:
			return 1
		}
		return 0
	}
	if rank(s) > rank(cur) {
		return s
	}
	return cur
}

// betterMetric reports whether metric value a beats b: accuracy is better
// higher, bits per character (and any loss-like metric) lower. NaN never
// beats anything.
func betterMetric(metric string, a, b float64) bool {
	if math.IsNaN(a) {
		return false
	}
	if math.IsNaN(b) {
		return true
	}
	if metric == "accuracy" {
		return a > b
	}
	return a < b
}

// meanSD is the mean and sample standard deviation of the finite values
// (NaN mean when none; sd 0 for one value).
func meanSD(xs []float64) (mean, sd float64) {
	n := 0
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			mean += x
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	mean /= float64(n)
	if n < 2 {
		return mean, 0
	}
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			sd += (x - mean) * (x - mean)
		}
	}
	return mean, math.Sqrt(sd / float64(n-1))
}

// rank orders standings best first: diverged last; then by the final val
// metric (accuracy higher, bpc lower), then val loss, then train loss.
func rank(st []standing, metric string) []int {
	order := make([]int, len(st))
	for i := range order {
		order[i] = i
	}
	less := func(a, b *standing) bool {
		da, db := a.status == probes.Diverged, b.status == probes.Diverged
		if da != db {
			return db
		}
		if a.haveVal != b.haveVal {
			return a.haveVal
		}
		if a.haveVal {
			if a.metric != b.metric && !math.IsNaN(a.metric) && !math.IsNaN(b.metric) {
				return betterMetric(metric, a.metric, b.metric)
			}
			if a.val != b.val && !math.IsNaN(a.val) && !math.IsNaN(b.val) {
				return a.val < b.val
			}
		}
		if math.IsNaN(b.train) {
			return !math.IsNaN(a.train)
		}
		return a.train < b.train
	}
	sort.SliceStable(order, func(i, j int) bool { return less(&st[order[i]], &st[order[j]]) })
	return order
}

// minSeedsJudged is how many seeds each side needs before a gap is judged
// against seed noise (FINDINGS.md, "Common rules": ≥ 3 seeds per side).
const minSeedsJudged = 3

// noiseVerdict says whether standing a's final val metric differs from
// b's beyond seed noise: |mean_a − mean_b| > 2·SE with SE =
// √(s_a²/n_a + s_b²/n_b) (FINDINGS.md, "Common rules"). "" when either
// side has fewer than minSeedsJudged seeds or no evaluation.
func noiseVerdict(a, b *standing) string {
	na, nb := len(a.idx), len(b.idx)
	if na < minSeedsJudged || nb < minSeedsJudged || !a.haveVal || !b.haveVal {
		return ""
	}
	se := math.Sqrt(a.metricSD*a.metricSD/float64(na) + b.metricSD*b.metricSD/float64(nb))
	d := math.Abs(a.metric - b.metric)
	if math.IsNaN(d) || math.IsNaN(se) {
		return ""
	}
	if d > 2*se {
		return "beyond noise"
	}
	return "within noise"
}
