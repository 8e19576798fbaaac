package probes

import (
	"math"
	"sort"
)

// GroupStanding is where one group of variants stands: the seeds of one
// spec (VariantMeta.Group), or a single variant. The numbers are over the
// seeds, as MeanSD; the dashboard's ranking and Summary screen draw them.
type GroupStanding struct {
	Key      string // VariantMeta.Group of its variants
	Variants []int  // variant indices, in run order
	Status   Status // the worst over seeds: diverged, stopped, running, done
	Stopped  int    // the first step a seed diverged or was stopped at; 0 when none
	Step     int    // the newest step over seeds
	HaveVal  bool   // some seed was evaluated on "val"
	// Metric is the newest val metric, Best the best so far; ValLoss and
	// Gap are of the newest val evaluation, Test the newest test metric.
	Metric, Best, ValLoss, Gap, Test MeanSD
	TrainLoss                        MeanSD // VariantStanding.Train
	// ValStep is the step of the newest val evaluation, the oldest over
	// seeds: where a live ranking compares validations.
	ValStep     int
	StepsPerSec MeanSD
	Outliers    []int // outlier alerts per layer, summed over seeds
}

// Groups groups the variants of run m by Group key in first-seen order
// (a multi-seed run trains each spec under every seed: VariantMeta.Seed)
// and summarises each group.
func (t *Standings) Groups(m RunMeta) []GroupStanding {
	var out []GroupStanding
	byKey := map[string]int{}
	for i := range t.Variants {
		key := m.VariantGroup(i)
		j, ok := byKey[key]
		if !ok {
			j = len(out)
			byKey[key] = j
			out = append(out, GroupStanding{Key: key, Status: Done, Outliers: make([]int, len(m.Layers))})
		}
		out[j].Variants = append(out[j].Variants, i)
	}
	for j := range out {
		t.summarise(&out[j])
	}
	return out
}

// summarise fills g's numbers from its variants' standings.
func (t *Standings) summarise(g *GroupStanding) {
	var metric, best, val, gap, test, train, sps []float64
	for _, i := range g.Variants {
		v := &t.Variants[i]
		g.Step = max(g.Step, v.Step)
		g.Status = WorseStatus(g.Status, v.Status)
		if at := v.stoppedAt(); at > 0 && (g.Stopped == 0 || at < g.Stopped) {
			g.Stopped = at
		}
		if v.Val != nil {
			if !g.HaveVal || v.ValStep < g.ValStep {
				g.ValStep = v.ValStep
			}
			g.HaveVal = true
			metric = append(metric, v.Val.Metric)
			best = append(best, v.Best)
			val = append(val, v.Val.Loss)
			gap = append(gap, v.Val.Gap())
		}
		if !math.IsNaN(v.Train) {
			train = append(train, v.Train)
		}
		sps = append(sps, v.StepsPerSec)
		if v.Test != nil {
			test = append(test, v.Test.Metric)
		}
		for l, n := range v.Outliers {
			if l < len(g.Outliers) {
				g.Outliers[l] += n
			}
		}
	}
	g.Metric, g.Best, g.ValLoss, g.Gap = NewMeanSD(metric), NewMeanSD(best), NewMeanSD(val), NewMeanSD(gap)
	g.Test, g.TrainLoss, g.StepsPerSec = NewMeanSD(test), NewMeanSD(train), NewMeanSD(sps)
}

// stoppedAt is the step a variant diverged or was stopped at, 0 while it
// runs or once it is done.
func (v *VariantStanding) stoppedAt() int {
	switch v.Status {
	case Diverged:
		return v.DivergedAt
	case Stopped:
		return v.Step
	}
	return 0
}

// WorseStatus folds a seed's status into its group's: diverged beats
// stopped beats running beats done (a group is done when every seed is).
func WorseStatus(cur, s Status) Status {
	rank := func(s Status) int {
		switch s {
		case Diverged:
			return 3
		case Stopped:
			return 2
		case Running:
			return 1
		}
		return 0
	}
	if rank(s) > rank(cur) {
		return s
	}
	return cur
}

// Rank orders groups best first: diverged last; then the evaluated before
// the others, by the newest val metric (metric m decides the direction),
// then by val loss; then by train loss. The sort is stable.
func Rank(gs []GroupStanding, m Metric) []int {
	order := make([]int, len(gs))
	for i := range order {
		order[i] = i
	}
	less := func(a, b *GroupStanding) bool {
		da, db := a.Status == Diverged, b.Status == Diverged
		if da != db {
			return db
		}
		if a.HaveVal != b.HaveVal {
			return a.HaveVal
		}
		if a.HaveVal {
			am, bm := a.Metric.Mean, b.Metric.Mean
			if am != bm && !math.IsNaN(am) && !math.IsNaN(bm) {
				return m.Better(am, bm)
			}
			av, bv := a.ValLoss.Mean, b.ValLoss.Mean
			if av != bv && !math.IsNaN(av) && !math.IsNaN(bv) {
				return av < bv
			}
		}
		at, bt := a.TrainLoss.Mean, b.TrainLoss.Mean
		if math.IsNaN(bt) {
			return !math.IsNaN(at)
		}
		return at < bt
	}
	sort.SliceStable(order, func(i, j int) bool { return less(&gs[order[i]], &gs[order[j]]) })
	return order
}
