package tui

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// TestStandingsSeeds: variants of one spec (several seeds) are one row
// with the mean and sample sd of their final metric; the ranking puts the
// best metric first and a diverged variant last.
func TestStandingsSeeds(t *testing.T) {
	meta := probes.RunMeta{Metric: "accuracy", Layers: []string{"block0.ln1", "block0.ln2", "block1.ln1"},
		Variants: []probes.VariantMeta{{Name: "layernorm", Seed: 1}, {Name: "layernorm", Seed: 2}, {Name: "batchnorm"}, {Name: "rmsnorm"}}}
	s := newStore(meta)
	val := []float64{0.80, 0.84, 0.90, 0.95}
	for v := range meta.Variants {
		for step := 1; step <= 10; step++ {
			f := probes.Frame{Variant: v, Step: step, TrainLoss: 1 / float64(step)}
			if step == 10 {
				f.Eval = []probes.Eval{{Split: "val", Loss: 0.5, Metric: val[v], TrainLoss: 0.1}}
				f.Status = probes.Done
			}
			if v == 3 && step == 10 {
				f.Status = probes.Diverged
			}
			if v == 2 && step == 5 {
				f.Alerts = []probes.Alert{{Kind: probes.AlertOutlier, Step: 5, Layer: 2, Probe: probes.DistVar}}
			}
			s.add(&f)
		}
	}
	st := s.standings()
	if s.variants[1].label != "layernorm s2" {
		t.Fatalf("seed label %q", s.variants[1].label)
	}
	if len(st) != 3 || len(st[0].Variants) != 2 || st[0].Key != "layernorm" {
		t.Fatalf("standings: %+v", st)
	}
	if math.Abs(st[0].Metric.Mean-0.82) > 1e-12 || math.Abs(st[0].Metric.SD-math.Sqrt(0.0008)) > 1e-12 {
		t.Fatalf("seed group: mean %v sd %v, want 0.82 ± %v", st[0].Metric.Mean, st[0].Metric.SD, math.Sqrt(0.0008))
	}
	if st[1].alerts[0] != 1 || st[1].alerts[1] != 0 {
		t.Fatalf("alerts per group (ln1, ln2): %v", st[1].alerts)
	}
	order := rank(st, meta.Metric)
	if got := []string{st[order[0]].Key, st[order[1]].Key, st[order[2]].Key}; strings.Join(got, ",") != "batchnorm,layernorm,rmsnorm" {
		t.Fatalf("rank %v", got)
	}
	// bpc: lower is better.
	evaluated := func(metric float64) standing {
		return standing{GroupStanding: probes.GroupStanding{HaveVal: true, Metric: probes.NewMeanSD([]float64{metric})}}
	}
	bpc := []standing{evaluated(1.4), evaluated(1.2), {}}
	if o := rank(bpc, "bpc"); o[0] != 1 || o[1] != 0 || o[2] != 2 {
		t.Fatalf("bpc rank %v", o)
	}
	if g := layerGroup("block3.ln1"); g != "ln1" {
		t.Fatalf("layerGroup: %q", g)
	}
	if g := layerGroup("fc2"); g != "fc" {
		t.Fatalf("layerGroup: %q", g)
	}
}

// TestSummaryScreenSeeds: the Summary shows a seed group as ×n with
// mean±sd and marks the best.
func TestSummaryScreenSeeds(t *testing.T) {
	m, _ := seededFixture()
	out := screenText(t, m, ScreenSummary, 160, 48)
	for _, want := range []string{"layernorm ×2", "±", "★", "n seeds of one spec"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// TestSummaryFindings: the findings the command sends (FindingsMsg) are
// listed on the Summary screen, and only there.
func TestSummaryFindings(t *testing.T) {
	meta := fixtureMeta(2, 2, 40)
	m := newLive(meta, newFakeFeed(), Options{NoColor: true})
	for _, f := range fixtureFrames(meta, 40) {
		m.data.add(&f)
	}
	line := "(iii) ψ² fluctuates far less than σ² (PowerNorm Fig. 4): not supported"
	if out := screenText(t, m, ScreenSummary, 160, 48); strings.Contains(out, "findings") {
		t.Fatalf("findings shown before any were sent:\n%s", out)
	}
	m.Update(FindingsMsg{Lines: []string{line}})
	for _, size := range [][2]int{{160, 48}, {80, 24}} {
		out := screenText(t, m, ScreenSummary, size[0], size[1])
		if !strings.Contains(out, "findings") || !strings.Contains(out, "(iii) ψ² fluctuates") {
			t.Errorf("%dx%d summary lacks the findings:\n%s", size[0], size[1], out)
		}
		// The column notes come right under the table, before the
		// findings (a long findings list cut them off, issue 35).
		if n, f := strings.Index(out, "final = the last val"), strings.Index(out, "findings ·"); n < 0 || n > f {
			t.Errorf("%dx%d: the column notes are not above the findings:\n%s", size[0], size[1], out)
		}
	}
	if out := screenText(t, m, ScreenOverview, 160, 48); strings.Contains(out, line) {
		t.Error("findings leak onto the Overview")
	}
}

// TestOverviewSeedMeans: the seeds of one spec are one line on the
// Overview chart, their mean, with one legend entry.
func TestOverviewSeedMeans(t *testing.T) {
	m, meta := seededFixture()
	out := screenText(t, m, ScreenOverview, 160, 48)
	label := meta.Variants[0].Spec
	if !strings.Contains(out, label+" ×2 (mean)") {
		t.Errorf("overview lacks the seed mean's legend entry:\n%s", out)
	}
	if strings.Contains(out, label+" s1") {
		t.Errorf("overview still draws seed 1 on its own:\n%s", out)
	}
}

func TestMeanBuckets(t *testing.T) {
	a := []bucket{{FirstStep: 1, LastStep: 2, Min: 1, Max: 3, Last: 2, Count: 2}, {FirstStep: 3, LastStep: 4, Min: 0, Max: 10, Last: 4, Count: 2}}
	b := []bucket{{FirstStep: 1, LastStep: 2, Min: 3, Max: 5, Last: 4, Count: 2}}
	got := meanBuckets([][]bucket{a, b})
	if len(got) != 1 {
		t.Fatalf("%d buckets, want 1 (the steps every seed has)", len(got))
	}
	if g := got[0]; g.Min != 2 || g.Max != 4 || g.Last != 3 || g.FirstStep != 1 || g.LastStep != 2 {
		t.Errorf("mean bucket %+v", g)
	}
	if one := meanBuckets([][]bucket{a}); len(one) != 2 || one[1].Max != 10 {
		t.Error("one series is not returned as it is")
	}
}

// TestCompareSeedMeans: Compare's chart draws a spec's seeds as one mean
// line too; its grid still has a column per seed.
func TestCompareSeedMeans(t *testing.T) {
	m, meta := seededFixture()
	out := screenText(t, m, ScreenCompare, 160, 48)
	label := meta.Variants[0].Spec
	if !strings.Contains(out, label+" ×2 (mean)") {
		t.Errorf("compare lacks the seed mean's legend entry:\n%s", out)
	}
	if !strings.Contains(out, label+" s2") {
		t.Errorf("compare's grid lost the seed columns:\n%s", out)
	}
}

// seededFixture is a live dashboard fed 40 steps of 3 variants whose first
// two are seeds 1 and 2 of one spec, as train --seeds 1,2 names them.
func seededFixture() (*Model, probes.RunMeta) {
	meta := fixtureMeta(3, 2, 40)
	meta.Variants[1] = meta.Variants[0]
	meta.Variants[0].Seed, meta.Variants[1].Seed = 1, 2
	m := newLive(meta, newFakeFeed(), Options{NoColor: true})
	for _, f := range fixtureFrames(meta, 40) {
		m.data.add(&f)
	}
	return m, meta
}

// TestBestMetricFromStandings: the best val metric is the standings' best
// so far (probes.VariantStanding.Best), exact over thousands of
// evaluations, higher for accuracy and lower for bpc, NaN values skipped.
func TestBestMetricFromStandings(t *testing.T) {
	for _, tc := range []struct {
		metric string
		evals  int
		want   float64
	}{
		{"accuracy", 0, math.NaN()},
		{"accuracy", 3000, 0.9},
		{"bpc", 3000, 0.5},
	} {
		t.Run(fmt.Sprintf("%s×%d", tc.metric, tc.evals), func(t *testing.T) {
			meta := fixtureMeta(1, 1, 1)
			meta.Metric = tc.metric
			s := newStore(meta)
			for i := range tc.evals {
				x := 0.7 + 0.1*math.Sin(float64(i))
				switch i {
				case 1234:
					x = tc.want
				case 77, 2999:
					x = math.NaN()
				}
				s.add(&probes.Frame{Step: i + 1, Eval: []probes.Eval{{Split: "val", Metric: x}}})
			}
			got := s.tally.Variants[0].Best
			if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
				t.Fatalf("best %v, want %v", got, tc.want)
			}
			if st := s.standings(); tc.evals > 0 && (!st[0].HaveVal || st[0].Best.Mean != tc.want || st[0].Step != tc.evals) {
				t.Fatalf("standing %+v", st[0])
			}
		})
	}
}
