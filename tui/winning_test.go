package tui

import (
	"fmt"
	"math"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/normtop/normtop/probes"
)

// TestEMADebiased: the smoothing is TensorBoard's: v̂_t = w·v̂_{t−1} +
// (1−w)·x_t divided by 1 − w^t, so a constant series stays constant from
// its first point (no pull towards 0) and a step is followed geometrically.
func TestEMADebiased(t *testing.T) {
	tests := []struct {
		w    float64
		xs   []float64
		want []float64
	}{
		{0.9, []float64{5, 5, 5}, []float64{5, 5, 5}},
		{0.5, []float64{1, 3}, []float64{1, (0.5*0.5*1 + 0.5*3) / (1 - 0.25)}},
		{0.6, []float64{2}, []float64{2}},
	}
	for _, tc := range tests {
		e := newEMA(tc.w)
		for i, x := range tc.xs {
			if got := e.add(x); math.Abs(got-tc.want[i]) > 1e-12 {
				t.Errorf("w=%g point %d: %g, want %g", tc.w, i, got, tc.want[i])
			}
		}
	}
}

// TestSmoothedTrainExact: the store smooths the train loss point by point
// as it arrives, every level; the chart's series is that, not a smoothing
// of the merged buckets.
func TestSmoothedTrainExact(t *testing.T) {
	m := fixtureModel(2, 1, 200, Options{})
	for k := 1; k < len(smoothWeights); k++ {
		e := newEMA(smoothWeights[k])
		var want float64
		for step := 1; step <= 200; step++ {
			want = e.add(fixtureFrame(&m.data.meta, 1, step, 200).TrainLoss)
		}
		_, got, ok := m.data.variants[1].smoothedTrain(k).Last()
		if !ok || math.Abs(got-want) > 1e-12 {
			t.Errorf("level %d: %g, want %g", k, got, want)
		}
	}
	if m.data.variants[0].smoothedTrain(0) != nil {
		t.Error("level 0 (off) has a series")
	}
}

// TestValNeverSmoothed: with smoothing on (the default) the val readout at
// the cursor is the evaluation itself; the train line is smoothed.
func TestValNeverSmoothed(t *testing.T) {
	m := fixtureModel(4, 2, 200, Options{NoColor: true})
	m.w, m.h = 120, 40
	if m.st.Smooth != defaultSmooth || smoothWeight(m.st.Smooth) == 0 {
		t.Fatalf("smoothing is not on by default: level %d", m.st.Smooth)
	}
	m.st.Cursor = 100
	c := m.screens[ScreenOverview].(*overviewScreen).lossChart(m.data.standings())
	var val, train []bucket
	for _, s := range c.series {
		switch s.label {
		case "layernorm val":
			val = s.bs
		case "layernorm":
			train = s.bs
		}
	}
	raw := fixtureFrame(&m.data.meta, 0, 100, 200)
	if got, want := probes.FormatValue(m.readoutVal(val, true)), probes.FormatValue(raw.Eval[0].Loss); got != want {
		t.Errorf("val at 100: %s, want the evaluation %s", got, want)
	}
	if got := m.readoutVal(train, false); math.Abs(got-raw.TrainLoss) < 1e-9 {
		t.Errorf("train at 100 is the raw value %g: not smoothed", got)
	}
}

// TestTransientEnd: a loss falling from its initial value has its y range
// fitted after the fall; a flat or short series has nothing left out.
func TestTransientEnd(t *testing.T) {
	series := func(f func(s int) float64, n int) []chartSeries {
		bs := make([]bucket, 0, n)
		for s := 1; s <= n; s++ {
			v := f(s)
			bs = append(bs, bucket{FirstStep: s, LastStep: s, Min: v, Max: v, Last: v, Count: 1})
		}
		return []chartSeries{{bs: bs}}
	}
	tests := []struct {
		name     string
		f        func(int) float64
		n        int
		from, to int // want a step in [from, to]; 0, 0: none
	}{
		{"falling", func(s int) float64 { return 4 + 4*math.Exp(-float64(s)/50) }, 1000, 50, 500},
		{"flat", func(s int) float64 { return 4 + 0.01*math.Sin(float64(s)) }, 1000, 0, 0},
		{"short", func(s int) float64 { return 4 + 4*math.Exp(-float64(s)/5) }, 40, 0, 0},
	}
	for _, tc := range tests {
		got := transientEnd(series(tc.f, tc.n), 1, tc.n)
		if got < tc.from || got > tc.to {
			t.Errorf("%s: %d, want in [%d, %d]", tc.name, got, tc.from, tc.to)
		}
	}
}

// TestDiffBuckets: a minus b at a's steps; exact (evaluations) skips the
// steps b has no point at.
func TestDiffBuckets(t *testing.T) {
	pt := func(s int, v float64) bucket {
		return bucket{FirstStep: s, LastStep: s, Min: v, Max: v, Last: v, Count: 1}
	}
	a := []bucket{pt(10, 5), pt(20, 4), pt(30, 3)}
	b := []bucket{pt(10, 4.5), pt(25, 4)}
	got := diffBuckets(a, b, false)
	want := []float64{0.5, -0.5} // at 20 b holds 4.5; at 30 b has ended
	if len(got) != 2 {
		t.Fatalf("%d points, want 2", len(got))
	}
	for i, g := range got {
		if math.Abs(g.Last-want[i]) > 1e-12 || g.Min != g.Last || g.Max != g.Last {
			t.Errorf("point %d: %+v, want %g", i, g, want[i])
		}
	}
	if got := diffBuckets(a, b, true); len(got) != 1 || got[0].LastStep != 10 {
		t.Errorf("exact: %+v, want the step-10 point only", got)
	}
}

// seedModel is a run of two specs × three seeds whose train losses differ
// by a known constant per seed, so the paired differences are known.
func seedModel(t *testing.T) *Model {
	t.Helper()
	meta := fixtureMeta(2, 1, 100)
	meta.Variants = nil
	for _, n := range []string{"layernorm", "batchnorm"} {
		for s := int64(1); s <= 3; s++ {
			meta.Variants = append(meta.Variants, probes.VariantMeta{Name: n, Spec: n, Seed: s})
		}
	}
	m := newLive(meta, newFakeFeed(), Options{NoColor: true})
	for step := 1; step <= 100; step++ {
		for v := range meta.Variants {
			seed := float64(meta.Variants[v].Seed)
			loss := 3 + 0.1*seed*math.Sin(float64(step)) // shared by the pair
			if v >= 3 {
				loss += 0.1 * seed // batchnorm seed s: +0.1·s
			}
			f := probes.Frame{Variant: v, Step: step, TrainLoss: loss}
			if step%20 == 0 {
				f.Eval = []probes.Eval{{Split: "val", Loss: loss + 0.2, Metric: 0.5 - 0.01*float64(v), TrainLoss: loss}}
			}
			m.data.add(&f)
		}
	}
	return m
}

// TestDiffOverSeeds: differences are paired by seed, then averaged; the
// band spans ± their sd.
func TestDiffOverSeeds(t *testing.T) {
	m := seedModel(t)
	m.st.Smooth = 0
	st := m.data.standings()
	if len(st) != 2 {
		t.Fatalf("%d standings, want 2", len(st))
	}
	train := func(v *variantData) []bucket { return rawBuckets(v.series(seriesTrainLoss)) }
	mean, band := m.screens[ScreenOverview].(*overviewScreen).diffOver(&st[1], &st[0], train, false)
	if len(mean) == 0 || len(band) != len(mean) {
		t.Fatalf("mean %d points, band %d", len(mean), len(band))
	}
	// Pairs differ by 0.1, 0.2, 0.3: mean 0.2, sd 0.1.
	last := len(mean) - 1
	if math.Abs(mean[last].Last-0.2) > 1e-9 {
		t.Errorf("mean difference %g, want 0.2", mean[last].Last)
	}
	if math.Abs(band[last].Max-0.3) > 1e-9 || math.Abs(band[last].Min-0.1) > 1e-9 {
		t.Errorf("band [%g, %g], want [0.1, 0.3]", band[last].Min, band[last].Max)
	}
}

// TestNoiseVerdict: the 2·SE rule with ≥ 3 seeds a side; fewer: no mark.
func TestNoiseVerdict(t *testing.T) {
	mk := func(n int, mean, sd float64) *standing {
		return &standing{GroupStanding: probes.GroupStanding{HaveVal: true, Metric: probes.MeanSD{Mean: mean, SD: sd, N: n}}}
	}
	tests := []struct {
		a, b *standing
		want string
	}{
		{mk(3, 0.50, 0.01), mk(3, 0.40, 0.01), "beyond noise"},
		{mk(3, 0.50, 0.10), mk(3, 0.45, 0.10), "within noise"},
		{mk(2, 0.50, 0.01), mk(3, 0.40, 0.01), ""},
		{mk(1, 0.50, 0), mk(1, 0.40, 0), ""},
	}
	for i, tc := range tests {
		if got := noiseVerdict(tc.a, tc.b); got != tc.want {
			t.Errorf("case %d: %q, want %q", i, got, tc.want)
		}
	}
}

// TestDiffKeys: d shows the difference view on the Overview (from any
// screen: the model shows the Overview first), b cycles the baseline, s
// steps the smoothing through every level and back.
func TestDiffKeys(t *testing.T) {
	var ov overviewState
	if _, ok := overviewKeys.handle(&ov, 4, "d", false); !ok || !ov.diff {
		t.Errorf("d: %+v", ov)
	}
	for want := 1; want <= 4; want++ {
		if _, ok := overviewKeys.handle(&ov, 4, "b", false); !ok || ov.baseline != want%4 {
			t.Errorf("b ×%d: baseline %d", want, ov.baseline)
		}
	}
	m := fixtureModel(4, 2, 200, Options{NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(keyPress("2"))
	m.Update(keyPress("d"))
	if o := m.screens[ScreenOverview].(*overviewScreen); m.st.Screen != ScreenOverview || !o.state.diff {
		t.Errorf("d on Layers: screen %v, diff %v", m.st.Screen, o.state.diff)
	}
	b := Bounds{Variants: 4}
	s := NewState(false, 1)
	seen := map[int]bool{}
	for range smoothWeights {
		s, _ = Navigate(s, "s", b)
		seen[s.Smooth] = true
	}
	if len(seen) != len(smoothWeights) || s.Smooth != defaultSmooth {
		t.Errorf("s visits %v and ends at %d", seen, s.Smooth)
	}
	// l flips what is shown: a log chart goes linear.
	if got, _ := Navigate(s, "l", Bounds{LogShown: true}); got.Log != logOff {
		t.Errorf("l on a log chart: %v", got)
	}
}

// TestDiffScreen: the difference view names its baseline, reads each
// variant's difference in the legend, and with seeds draws the band and
// marks gaps against seed noise in the ranking.
func TestDiffScreen(t *testing.T) {
	m := seedModel(t)
	m.screens[ScreenOverview].(*overviewScreen).state.diff = true
	out := runScreen(t, m, 120, 40)
	for _, want := range []string{"Δ loss vs layernorm ×3 (mean)", "band: ± sd over seeds", "baseline (0)", "vs ★ (2·SE)", "beyond noise"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
}

// TestGoldenWinning: the Overview's loss chart (smoothed, raw faint) and
// its difference view (d, then b) at 80×24 and 160×48, colours pinned.
func TestGoldenWinning(t *testing.T) {
	cases := []struct {
		name string
		keys []string
	}{
		{"loss", nil},
		{"diff", []string{"d"}},
		{"diff_baseline", []string{"d", "b"}},
		{"smooth_off", []string{"s", "s"}},
	}
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				dark := true
				m := fixtureModel(4, 6, 200, Options{RunPath: "runs/fixture.ntr", Dark: &dark})
				out := runScreen(t, m, size[0], size[1], tc.keys...)
				golden.RequireEqual(t, pinned(t, out, colorprofile.ANSI256))
			})
		}
	}
}

// TestDiffBaselineDiverged: a baseline that diverged says so in one line of
// the legend, and the others' differences stop where it stopped.
func TestDiffBaselineDiverged(t *testing.T) {
	m := fixtureModel(4, 2, 200, Options{NoColor: true}) // adanorm (3) diverges at 150
	o := m.screens[ScreenOverview].(*overviewScreen)
	o.state = overviewState{diff: true, baseline: 3}
	c := o.diffChart(m.data.standings())
	legend := strings.Join(c.legend, " ")
	if !strings.Contains(legend, "diverged at 150") {
		t.Fatalf("no diverged note in %q", legend)
	}
	for _, s := range c.series {
		if s.label == "layernorm" && len(s.bs) > 0 && s.bs[len(s.bs)-1].LastStep > 150 {
			t.Errorf("layernorm's difference runs past the baseline's end: %d", s.bs[len(s.bs)-1].LastStep)
		}
	}
}
