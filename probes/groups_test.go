package probes

import (
	"math"
	"slices"
	"testing"
)

// TestGroups folds two seeds of one spec and one other variant and checks
// each group's numbers, the best-so-far, the last measured train loss and
// the ranking.
func TestGroups(t *testing.T) {
	m := RunMeta{Metric: string(MetricAccuracy), Layers: []string{"ln1", "ln2"}, Variants: []VariantMeta{
		{Name: "layernorm", Seed: 1}, {Name: "layernorm", Seed: 2},
		{Name: "powernorm", Spec: "powernorm:alpha_fwd=0.9", Seed: 1},
		{Name: "batchnorm", Seed: 1},
	}}
	s := NewStandings(m)
	// train: the Collector's mean since the previous evaluation (Train).
	val := func(metric, loss, train float64) []Eval {
		return []Eval{{Split: "val", Metric: metric, Loss: loss, TrainLoss: train}}
	}
	for _, f := range []Frame{
		{Variant: 0, Step: 10, TrainLoss: 1.0, StepsPerSec: 4, Eval: val(0.8, 0.5, 1.0)},
		{Variant: 0, Step: 20, TrainLoss: 0.8, StepsPerSec: 6, Eval: val(0.7, 0.6, 0.8), Status: Done},
		{Variant: 1, Step: 20, TrainLoss: 0.6, StepsPerSec: 5, Eval: val(0.9, 0.4, 0.6), Status: Done,
			Alerts: []Alert{{Kind: AlertOutlier, Layer: 1}}},
		{Variant: 2, Step: 5, TrainLoss: 3.0, StepsPerSec: 5},
		{Variant: 2, Step: 6, TrainLoss: math.NaN(), Status: Diverged},
		{Variant: 3, Step: 20, TrainLoss: 0.7, StepsPerSec: 5, Status: Done},
	} {
		s.Fold(&f)
	}
	gs := s.Groups(m)
	if len(gs) != 3 || gs[0].Key != "layernorm" || !slices.Equal(gs[0].Variants, []int{0, 1}) || gs[1].Key != "powernorm:alpha_fwd=0.9" {
		t.Fatalf("groups %+v", gs)
	}
	ln := gs[0]
	if ln.Metric.N != 2 || math.Abs(ln.Metric.Mean-0.8) > 1e-12 || math.Abs(ln.Best.Mean-0.85) > 1e-12 {
		t.Errorf("layernorm metric %+v best %+v, want mean 0.8, best mean (0.8+0.9)/2", ln.Metric, ln.Best)
	}
	if math.Abs(ln.TrainLoss.Mean-0.7) > 1e-12 || ln.Status != Done || !slices.Equal(ln.Outliers, []int{0, 1}) {
		t.Errorf("layernorm train %+v status %v outliers %v", ln.TrainLoss, ln.Status, ln.Outliers)
	}
	pn := gs[1]
	if pn.Status != Diverged || pn.Stopped != 6 || pn.TrainLoss.Mean != 3.0 || pn.HaveVal || pn.Metric.N != 0 {
		t.Errorf("powernorm %+v: want diverged at 6, its last measured train loss 3", pn)
	}
	if got := Rank(gs, MetricAccuracy); !slices.Equal(got, []int{0, 2, 1}) {
		t.Errorf("Rank = %v, want evaluated first, diverged last", got)
	}
	if got := Rank(gs, MetricBPC); !slices.Equal(got, []int{0, 2, 1}) {
		t.Errorf("Rank(bpc) = %v", got)
	}
}

// TestStandingsBestDirection: the best-so-far follows the metric's
// direction, survives a Merge, and a NaN evaluation never becomes it.
func TestStandingsBestDirection(t *testing.T) {
	for _, c := range []struct {
		metric Metric
		want   float64
	}{{MetricAccuracy, 0.9}, {MetricBPC, 0.5}} {
		m := RunMeta{Metric: string(c.metric), Variants: []VariantMeta{{Name: "x"}}}
		a, b := NewStandings(m), NewStandings(m)
		a.Fold(&Frame{Eval: []Eval{{Split: "val", Metric: 0.9}}})
		a.Fold(&Frame{Eval: []Eval{{Split: "val", Metric: math.NaN()}}})
		b.Fold(&Frame{Eval: []Eval{{Split: "val", Metric: 0.5}}})
		a.Merge(b)
		if got := a.Variants[0].Best; got != c.want {
			t.Errorf("%s: Best = %v, want %v", c.metric, got, c.want)
		}
	}
}
