package report

import (
	"math"
	"slices"
	"testing"

	"github.com/normtop/normtop/probes"
)

// series builds a seriesAcc of vals at steps first, first+stride, ….
func series(first, stride int, vals ...float64) *seriesAcc {
	s := &seriesAcc{}
	for i, v := range vals {
		s.vals = append(s.vals, float32(v))
		s.steps.add(first + i*stride)
	}
	return s
}

// constant returns n copies of v.
func constant(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestStepSeq(t *testing.T) {
	var s stepSeq
	for _, st := range []int{2, 4, 6} {
		s.add(st)
	}
	if s.steps != nil || s.at(2) != 6 || s.firstAfter(4) != 2 || s.firstAfter(0) != 0 || s.firstAfter(6) != 3 {
		t.Fatalf("regular steps: %+v", s)
	}
	s.add(7) // breaks the progression
	if s.steps == nil || s.at(3) != 7 || s.at(1) != 4 || s.firstAfter(6) != 3 {
		t.Fatalf("irregular steps: %+v", s)
	}
	var j stepSeq
	j.appendSeq(&s)
	j.add(9)
	if got := []int{j.at(0), j.at(1), j.at(2), j.at(3), j.at(4)}; !slices.Equal(got, []int{2, 4, 6, 7, 9}) {
		t.Fatalf("joined: %v", got)
	}
}

// TestResidualWindow: docs/findings.md's Start-up rule on series worked by hand.
func TestResidualWindow(t *testing.T) {
	// 20 steps, dist(1) = 1, the second half (steps 11-20) at 0.01. With
	// m = 0.5: 0.5^t < 0.01 first at t = 7 (0.5^6 = 0.0156, 0.5^7 =
	// 0.0078): the window is steps 1-6.
	vals := append(append([]float64{1}, constant(9, 0.5)...), constant(10, 0.01)...)
	s := series(1, 1, vals...)
	if w := residualWindow(s.vals, &s.steps, 0.5, 20); w != 6 {
		t.Errorf("window %d, want 6", w)
	}
	// m = 0.05: 0.95^t < 0.01 first at t = 90 (ln 0.01/ln 0.95 = 89.78),
	// beyond the run: every step is in the window.
	if w := residualWindow(s.vals, &s.steps, 0.05, 20); w != 20 {
		t.Errorf("window %d, want the whole run (20)", w)
	}
	// A first distance already below the second half's median: no window.
	low := series(1, 1, append([]float64{0.001}, constant(19, 0.01)...)...)
	if w := residualWindow(low.vals, &low.steps, 0.5, 20); w != 0 {
		t.Errorf("window %d, want 0", w)
	}
	// A second half of zeros: the residual never falls below it.
	zero := series(1, 1, append([]float64{1}, constant(19, 0)...)...)
	if w := residualWindow(zero.vals, &zero.steps, 0.5, 20); w != 20 {
		t.Errorf("window %d, want 20", w)
	}
	// The rule is in steps: a series recorded every 2nd step (steps 1, 3,
	// …, 39; the second half is steps 21-39) gives the same t.
	sparse := series(1, 2, append(append([]float64{1}, constant(9, 0.5)...), constant(10, 0.01)...)...)
	if w := residualWindow(sparse.vals, &sparse.steps, 0.5, 39); w != 6 {
		t.Errorf("every 2nd step: window %d, want 6", w)
	}
}

// TestOutlierSteps: the median is over the previous 100 steps, not the
// whole history. Steps 1-200 at 0.01, 201-300 at 1, 301 at 5: a 1 is an
// outlier while at most 49 of the 100 steps before it are 1s (steps
// 201-250: at 251 the window holds 50 of each and the median is 0.505);
// 5 at step 301 is not (the median of steps 201-300 is 1), though it is
// 500× the median of the whole history.
func TestOutlierSteps(t *testing.T) {
	vals := append(append(constant(200, 0.01), constant(100, 1)...), 5)
	s := series(1, 1, vals...)
	got := outlierSteps(s.vals, &s.steps, 0)
	want := make([]int, 0, 50)
	for st := 201; st <= 250; st++ {
		want = append(want, st)
	}
	if !slices.Equal(got, want) {
		t.Errorf("outliers at %v, want steps 201-250", got)
	}
	// Values before from (the start-up window) are neither judged nor in
	// any median: from step 251 on, the window holds only 1s.
	if got := outlierSteps(s.vals, &s.steps, 250); len(got) != 0 {
		t.Errorf("judged from step 251: outliers at %v, want none", got)
	}
	// A median of 0 (a shadow distance starts at 0) judges nothing: 5
	// after a 0 is no outlier; 50 after (0, 5) is (median 2.5).
	zero := series(1, 1, 0, 5, 50)
	if got := outlierSteps(zero.vals, &zero.steps, 0); !slices.Equal(got, []int{3}) {
		t.Errorf("after a zero: outliers at %v, want [3]", got)
	}
	// The first judged value has nothing before it: not an outlier.
	spike := series(1, 1, 100, 1, 1, 20)
	if got := outlierSteps(spike.vals, &spike.steps, 0); !slices.Equal(got, []int{4}) {
		t.Errorf("outliers at %v, want [4] (20 > 10 × median(100, 1, 1) = 10)", got)
	}
}

// TestPersistenceAndGrowth: a g_var series (no window) of 400 steps at 1,
// with spikes of 50 at steps 20, 40, 60, 80 (first quarter, steps 1-100)
// and 320, 360 (last quarter, steps 301-400): 6 outliers, 15 per 1,000
// steps, persistence 2/4. Its level steps from 1 to 3 at step 301: growth
// (median of the last quarter / the first) 3.
func TestPersistenceAndGrowth(t *testing.T) {
	vals := constant(400, 1)
	for i := 300; i < 400; i++ {
		vals[i] = 3
	}
	for _, st := range []int{20, 40, 60, 80, 320, 360} {
		vals[st-1] = 50
	}
	ps := summarise(series(1, 1, vals...), 0, probes.GVar, 400)
	if ps.Window != 0 || ps.N != 400 || ps.Outliers != 6 || ps.OutFirst != 4 || ps.OutLast != 2 {
		t.Fatalf("%+v", ps)
	}
	if ps.OutliersPer1k != 15 || ps.Persistence != 0.5 || ps.Trend != 3 {
		t.Errorf("per 1k %v, persistence %v, trend %v; want 15, 0.5, 3", ps.OutliersPer1k, ps.Persistence, ps.Trend)
	}
	// A signed probe has no outliers: "10× its median" means nothing.
	if s := summarise(series(1, 1, vals...), 0, probes.DxMean, 400); !math.IsNaN(s.OutliersPer1k) {
		t.Errorf("dx_mean outliers per 1k %v, want NaN", s.OutliersPer1k)
	}
	if !math.IsNaN(persistence(0, 0)) || !math.IsInf(persistence(0, 3), 1) {
		t.Error("persistence: 0/0 must be NaN and n/0 +Inf")
	}
}

// layerOf puts series under their probes, as one layer of a replicate.
func layerOf(ss map[probes.Probe]*seriesAcc) []seriesAcc {
	layer := make([]seriesAcc, probes.NumProbes)
	for p, s := range ss {
		layer[p] = *s
	}
	return layer
}

// TestSummariseWindow: a distance to the layer's own statistic skips the
// longer of the ⌈3/m⌉ warm-up and the residual window, and the quarters of
// the growth rule start after it.
func TestSummariseWindow(t *testing.T) {
	// 40 steps: dist(1) = 1, steps 2-20 at 0.5, steps 21-40 at 0.01 then
	// 0.02 (steps 31-40). Second-half median 0.015; m = 0.5: 0.5^t < 0.015
	// first at t = 7. Warm-up 3 < residual 6: steps 1-6 skipped.
	vals := append(append(append([]float64{1}, constant(19, 0.5)...), constant(10, 0.01)...), constant(10, 0.02)...)
	w := probes.Warmup{Steps: 3, Rate: 0.5, Probes: []probes.Probe{probes.DistVar}}
	layer := layerOf(map[probes.Probe]*seriesAcc{probes.DistVar: series(1, 1, vals...), probes.DistPsi2: series(1, 1, vals...)})
	win := startupWindows(layer, w, 40)
	if win[probes.DistVar] != 6 || win[probes.DistPsi2] != 0 || win[probes.GVar] != 0 {
		t.Fatalf("windows: dist_var %d, dist_psi2 (a shadow here) %d, g_var %d; want 6, 0, 0", win[probes.DistVar], win[probes.DistPsi2], win[probes.GVar])
	}
	ps := summarise(&layer[probes.DistVar], win[probes.DistVar], probes.DistVar, 40)
	if ps.Window != 6 || ps.Skipped != 6 || ps.N != 34 {
		t.Fatalf("window %d, skipped %d, n %d; want 6, 6, 34", ps.Window, ps.Skipped, ps.N)
	}
	// First quarter after the window: steps 7-16 (0.5); last: 31-40 (0.02).
	if math.Abs(ps.Trend-0.04) > 1e-7 {
		t.Errorf("trend %v, want 0.02/0.5 = 0.04", ps.Trend)
	}
	// A longer warm-up wins over a shorter residual window.
	w.Steps = 10
	if win := startupWindows(layer, w, 40); win[probes.DistVar] != 10 {
		t.Errorf("window %d, want the warm-up's 10", win[probes.DistVar])
	}
}

// TestRelativeDistanceWindow: the Start-up rule is written on the plain
// distance, whose residual decays as (1−m)^t; a relative distance takes
// its statistic's window from it. Here (m = 0.5, 40 steps) dist_psi2 is 1
// then 0.01: window 6. rdist_psi2 stays at 1 (its denominator is the
// decaying init) until step 30, then 0.1: on its own series the rule would
// end the window at once (second-half median 0.55 > 0.5·1).
func TestRelativeDistanceWindow(t *testing.T) {
	w := probes.Warmup{Steps: 3, Rate: 0.5, Probes: []probes.Probe{probes.DistPsi2, probes.RdistPsi2}}
	psi := series(1, 1, append([]float64{1}, constant(39, 0.01)...)...)
	rel := series(1, 1, append(constant(30, 1), constant(10, 0.1)...)...)
	if own := residualWindow(rel.vals, &rel.steps, 0.5, 40); own != 0 {
		t.Fatalf("rdist_psi2's own residual window %d, want 0 (the case the rule does not fit)", own)
	}
	win := startupWindows(layerOf(map[probes.Probe]*seriesAcc{probes.DistPsi2: psi, probes.RdistPsi2: rel}), w, 40)
	if win[probes.DistPsi2] != 6 || win[probes.RdistPsi2] != 6 {
		t.Errorf("windows dist_psi2 %d, rdist_psi2 %d; want 6 and 6", win[probes.DistPsi2], win[probes.RdistPsi2])
	}
	// Without its plain distance, a relative one falls back on its own series.
	alone := startupWindows(layerOf(map[probes.Probe]*seriesAcc{probes.RdistPsi2: rel}), w, 40)
	if alone[probes.RdistPsi2] != 3 {
		t.Errorf("rdist_psi2 alone: window %d, want the warm-up's 3", alone[probes.RdistPsi2])
	}
	// rdist_mu (over ‖σ‖) takes the longer of dist_mu's and dist_var's.
	bn := probes.Warmup{Steps: 1, Rate: 0.5, Probes: []probes.Probe{probes.DistMu, probes.DistVar, probes.RdistMu, probes.RdistVar}}
	mu := series(1, 1, constant(40, 0.01)...) // no residual: window 0
	bnWin := startupWindows(layerOf(map[probes.Probe]*seriesAcc{probes.DistMu: mu, probes.DistVar: psi, probes.RdistMu: rel, probes.RdistVar: rel}), bn, 40)
	if bnWin[probes.DistMu] != 1 || bnWin[probes.RdistMu] != 6 || bnWin[probes.RdistVar] != 6 {
		t.Errorf("batchnorm windows: dist_mu %d, rdist_mu %d, rdist_var %d; want 1, 6, 6", bnWin[probes.DistMu], bnWin[probes.RdistMu], bnWin[probes.RdistVar])
	}
}
