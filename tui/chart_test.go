package tui

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

func TestLinearAxis(t *testing.T) {
	tests := []struct {
		lo, hi float64
		max    int
		ticks  []float64
		labels []string
	}{
		{1.45, 4.56, 6, []float64{1, 2, 3, 4, 5}, []string{"1", "2", "3", "4", "5"}},
		{0, 1, 6, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{0.013, 0.047, 5, []float64{0.01, 0.02, 0.03, 0.04, 0.05}, []string{"0.01", "0.02", "0.03", "0.04", "0.05"}},
		{-3, 7, 6, []float64{-4, -2, 0, 2, 4, 6, 8}[1:6], nil}, // checked below
		{2e-4, 9e-4, 5, []float64{2e-4, 4e-4, 6e-4, 8e-4, 10e-4}, []string{"2.0e-4", "4.0e-4", "6.0e-4", "8.0e-4", "1.0e-3"}},
		{4e-7, 1.4e-6, 4, []float64{0, 5e-7, 10e-7, 15e-7}, []string{"0", "5.0e-7", "1.0e-6", "1.5e-6"}},
		{120000, 480000, 5, []float64{100000, 200000, 300000, 400000, 500000}, []string{"1e5", "2e5", "3e5", "4e5", "5e5"}},
		{2, 2, 5, []float64{1.8, 1.9, 2, 2.1, 2.2}, []string{"1.8", "1.9", "2.0", "2.1", "2.2"}},
		{1, 1 + 2.220446049250313e-16, 5, []float64{0.9, 0.95, 1, 1.05, 1.1}, nil}, // a rounding apart: flat (once an endless loop)
	}
	for _, tc := range tests {
		a := linearAxis(tc.lo, tc.hi, tc.max)
		if len(a.ticks) < 2 || len(a.ticks) > tc.max {
			t.Errorf("[%g, %g]: %d ticks %v", tc.lo, tc.hi, len(a.ticks), a.ticks)
		}
		if a.lo > tc.lo || a.hi < tc.hi {
			t.Errorf("[%g, %g]: axis [%g, %g] does not cover the data", tc.lo, tc.hi, a.lo, a.hi)
		}
		// Every step is one round 1-2-5 value.
		step := a.ticks[1] - a.ticks[0]
		mant := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
		if !slices.ContainsFunc([]float64{1, 2, 5}, func(m float64) bool { return math.Abs(m-mant) < 1e-6 }) {
			t.Errorf("[%g, %g]: step %g is not 1-2-5", tc.lo, tc.hi, step)
		}
		if tc.labels == nil {
			continue
		}
		if !floatsNear(a.ticks, tc.ticks) || !slices.Equal(a.labels, tc.labels) {
			t.Errorf("[%g, %g]: ticks %v labels %q, want %v %q", tc.lo, tc.hi, a.ticks, a.labels, tc.ticks, tc.labels)
		}
	}
}

func TestLogAxis(t *testing.T) {
	tests := []struct {
		lo, hi float64 // log10 of the data range
		labels []string
	}{
		{-3, 1, []string{"1e-3", "0.01", "0.1", "1", "10"}},
		{-2.7, 0.3, []string{"1e-3", "0.01", "0.1", "1", "10"}},
		{-12, 0, []string{"1e-12", "1e-9", "1e-6", "1e-3", "1"}},
		// 0.5 decades: round linear values, never "1e0.6".
		{math.Log10(1.45), math.Log10(4.56), []string{"1", "2", "3", "4", "5"}},
		// 0.95 decades: the 1-2-5 values, formatted alike.
		{math.Log10(0.3), math.Log10(2.7), []string{"0.5", "1.0", "2.0"}},
		{math.Log10(0.015), math.Log10(0.25), []string{"0.02", "0.05", "0.10", "0.20"}},
		{-0.1, 0, []string{"0.78", "0.80", "0.82", "0.84", "0.86", "0.88", "0.90", "0.92", "0.94", "0.96", "0.98", "1.00"}[0:0]},
	}
	for _, tc := range tests {
		a := logAxis(tc.lo, tc.hi, 6)
		for _, l := range a.labels {
			if strings.Contains(l, "e0.") || strings.Contains(l, "e-0.") {
				t.Errorf("[%g, %g]: fractional exponent label %q", tc.lo, tc.hi, l)
			}
		}
		if len(a.ticks) < 2 || len(a.ticks) > 6 {
			t.Errorf("[%g, %g]: %d ticks %q", tc.lo, tc.hi, len(a.ticks), a.labels)
		}
		if a.lo > tc.lo+1e-9 || a.hi < tc.hi-1e-9 {
			t.Errorf("[%g, %g]: axis [%g, %g] does not cover the data", tc.lo, tc.hi, a.lo, a.hi)
		}
		if len(tc.labels) > 0 && !slices.Equal(a.labels, tc.labels) {
			t.Errorf("[%g, %g]: labels %q, want %q", tc.lo, tc.hi, a.labels, tc.labels)
		}
		if !slices.IsSorted(a.ticks) || hasDup(a.labels) {
			t.Errorf("[%g, %g]: ticks not increasing or labels repeated: %q", tc.lo, tc.hi, a.labels)
		}
	}
}

func hasDup(ls []string) bool {
	seen := map[string]bool{}
	for _, l := range ls {
		if seen[l] {
			return true
		}
		seen[l] = true
	}
	return false
}

func floatsNear(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9*math.Max(1, math.Abs(b[i])) {
			return false
		}
	}
	return true
}

func TestStepTicks(t *testing.T) {
	tests := []struct {
		lo, hi, max int
		want        []int
	}{
		{1, 200, 5, []int{50, 100, 150, 200}},
		{1, 1500, 6, []int{500, 1000, 1500}},
		{1, 100000, 8, []int{20000, 40000, 60000, 80000, 100000}},
		{90, 110, 5, []int{90, 95, 100, 105, 110}},
		{1, 3, 5, []int{1, 2, 3}},
	}
	for _, tc := range tests {
		if got := stepTicks(tc.lo, tc.hi, tc.max); !slices.Equal(got, tc.want) {
			t.Errorf("stepTicks(%d, %d, %d) = %v, want %v", tc.lo, tc.hi, tc.max, got, tc.want)
		}
	}
	if fmtStep(20000) != "20k" || fmtStep(1500) != "1500" || fmtStep(2_000_000) != "2M" {
		t.Errorf("fmtStep: %s %s %s", fmtStep(20000), fmtStep(1500), fmtStep(2_000_000))
	}
}

// TestDownsampleSpike: a one-step spike in 100,000 steps survives into
// the chart's columns at every width, through the bounded History too.
func TestDownsampleSpike(t *testing.T) {
	const steps, spikeAt = 100_000, 61_237
	h := probes.NewHistory(seriesCapacity)
	for s := 1; s <= steps; s++ {
		v := 1.0
		if s == spikeAt {
			v = 50
		}
		if s == spikeAt+1000 {
			v = -7 // and a one-step dip
		}
		h.Add(s, v)
	}
	bs := h.View(seriesCapacity)
	var cols []colSpan
	for n := 1; n <= 600; n++ {
		cols = downsample(bs, 1, steps, n, cols)
		hi, lo := math.Inf(-1), math.Inf(1)
		for _, c := range cols {
			if c.N > 0 {
				hi, lo = math.Max(hi, c.Max), math.Min(lo, c.Min)
			}
		}
		if hi != 50 || lo != -7 {
			t.Fatalf("width %d: extremes %g..%g, want -7..50", n, lo, hi)
		}
	}
	// Zoomed to a window around the spike, it is in the right column.
	cols = downsample(bs, 60_000, 62_000, 100, cols)
	c := (spikeAt - 60_000) * 100 / 2001
	found := false
	for i := max(c-1, 0); i <= min(c+1, 99); i++ {
		found = found || cols[i].Max == 50
	}
	if !found {
		t.Fatalf("spike not near column %d", c)
	}
	// Columns outside the series are empty; a series shorter than the
	// window leaves the tail empty.
	short := []probes.Bucket{{FirstStep: 1, LastStep: 10, Min: 1, Max: 2, Last: 2, Count: 10}}
	cols = downsample(short, 1, 100, 10, cols)
	if cols[0].N == 0 || cols[1].N != 0 || cols[9].N != 0 {
		t.Fatalf("short series: %+v", cols)
	}
}

func TestDownsampleExact(t *testing.T) {
	// One point per step, as many columns as steps: each column is its point.
	var bs []probes.Bucket
	for s := 1; s <= 8; s++ {
		v := float64(s * s)
		bs = append(bs, probes.Bucket{FirstStep: s, LastStep: s, Min: v, Max: v, Last: v, Count: 1})
	}
	cols := downsample(bs, 1, 8, 8, nil)
	for i, c := range cols {
		if c.N != 1 || c.Last != float64((i+1)*(i+1)) || c.Min != c.Max {
			t.Fatalf("column %d: %+v", i, c)
		}
	}
	// Two steps per column: min and max of the pair, last of the pair.
	cols = downsample(bs, 1, 8, 4, cols)
	for i, c := range cols {
		a, b := float64((2*i+1)*(2*i+1)), float64((2*i+2)*(2*i+2))
		if c.Min != a || c.Max != b || c.Last != b || c.N != 2 {
			t.Fatalf("column %d: %+v", i, c)
		}
	}
}

func TestValueAt(t *testing.T) {
	// An eval series every 100 steps from 100 to 500.
	var bs []probes.Bucket
	for s := 100; s <= 500; s += 100 {
		bs = append(bs, probes.Bucket{FirstStep: s, LastStep: s, Min: float64(s), Max: float64(s), Last: float64(s), Count: 1})
	}
	// A coarse bucket covering 501..600 ending at 42.
	bs = append(bs, probes.Bucket{FirstStep: 501, LastStep: 600, Min: 1, Max: 99, Last: 42, Count: 100})
	tests := []struct {
		step   int
		v      float64
		at     int
		wantOK bool
	}{
		{99, 0, 0, false},
		{100, 100, 100, true},
		{150, 100, 100, true}, // holds the last evaluation
		{300, 300, 300, true},
		{550, 42, 600, true}, // inside a bucket: its last value
		{600, 42, 600, true},
		{601, 0, 0, false},
	}
	for _, tc := range tests {
		v, at, ok := valueAt(bs, tc.step)
		if ok != tc.wantOK || (ok && (v != tc.v || at != tc.at)) {
			t.Errorf("valueAt(%d) = %g@%d %v, want %g@%d %v", tc.step, v, at, ok, tc.v, tc.at, tc.wantOK)
		}
	}
	if _, _, ok := valueAt(nil, 5); ok {
		t.Error("empty series has a value")
	}
}

// TestCursorReadout: the legend reads every variant's value at the cursor.
func TestCursorReadout(t *testing.T) {
	m := fixtureModel(4, 2, 200, Options{NoColor: true})
	m.w, m.h = 120, 40
	m.st.Cursor = 100
	m.st.Smooth = 0 // raw values
	for i := range m.data.variants {
		bs := m.buckets(m.data.variants[i].series(probes.SeriesTrainLoss))
		want := fixtureFrame(&m.data.meta, i, 100, 200).TrainLoss
		if got := m.readout(bs); got != fmt3(want) {
			t.Errorf("variant %d at step 100: %s, want %s", i, got, fmt3(want))
		}
	}
	m.st.Cursor = -1
	bs := m.buckets(m.data.variants[0].series(probes.SeriesTrainLoss))
	if got, want := m.readout(bs), fmt3(fixtureFrame(&m.data.meta, 0, 200, 200).TrainLoss); got != want {
		t.Errorf("no cursor: %s, want the latest %s", got, want)
	}
	// Evaluations: between two (every 20 steps) the earlier holds, and
	// past the last one too, while a step series has nothing there.
	m.st.Cursor = 115
	va := m.buckets(m.data.variants[0].series(probes.SeriesValLoss))
	if got, want := fmt3(m.readoutVal(va, true)), fmt3(fixtureFrame(&m.data.meta, 0, 100, 200).Eval[0].Loss); got != want {
		t.Errorf("val at 115: %s, want the step-100 eval %s", got, want)
	}
	ada := m.data.variants[3]
	m.st.Cursor = 170 // adanorm diverged at 150: its last eval was at 140
	if got, want := fmt3(m.readoutVal(m.buckets(ada.series(probes.SeriesValLoss)), true)), fmt3(fixtureFrame(&m.data.meta, 3, 140, 200).Eval[0].Loss); got != want {
		t.Errorf("adanorm val at 170: %s, want %s", got, want)
	}
	if got := m.readout(m.buckets(ada.series(probes.SeriesTrainLoss))); got != "–" {
		t.Errorf("adanorm train at 170 (after it diverged): %s, want –", got)
	}
	// On a log axis the readout is the value, not its logarithm.
	m.st.Log, m.st.Cursor = logOn, 50
	m.useLog()
	bs = m.buckets(m.data.variants[1].series(probes.SeriesTrainLoss))
	if got, want := m.readout(bs), fmt3(fixtureFrame(&m.data.meta, 1, 50, 200).TrainLoss); got != want {
		t.Errorf("log axis: %s, want %s", got, want)
	}
}

// TestChartDraws: the chart has exactly h lines of w cells, y labels at
// round values, the spike's dot in the top row, and the warm-up window on
// the axis line.
func TestChartDraws(t *testing.T) {
	m := fixtureModel(1, 1, 10, Options{NoColor: true})
	var bs []probes.Bucket
	for s := 1; s <= 200; s++ {
		v := 1.0
		if s == 137 {
			v = 9.5
		}
		bs = append(bs, probes.Bucket{FirstStep: s, LastStep: s, Min: v, Max: v, Last: v, Count: 1})
	}
	lines := m.drawChart([]chartSeries{{label: "a", bs: bs}}, chartSpec{w: 60, h: 12, lo: 1, hi: 200, warmup: 60, cursor: -1})
	if len(lines) != 12 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines[:10] {
		if w := len([]rune(l)); w != 60 {
			t.Fatalf("line %d is %d cells: %q", i, w, l)
		}
	}
	if !strings.HasPrefix(lines[0], "10┤") || !strings.Contains(lines[9], "0┤") {
		t.Fatalf("y labels:\n%s", strings.Join(lines, "\n"))
	}
	if strings.Trim(lines[0][len("10┤"):], "\u2800") == "" {
		t.Fatalf("spike missing from the top row:\n%s", strings.Join(lines, "\n"))
	}
	if !strings.Contains(lines[10], "┄") || !strings.Contains(lines[11], "200") {
		t.Fatalf("x axis:\n%s", strings.Join(lines, "\n"))
	}
}

func TestEventRows(t *testing.T) {
	ev := func(v, step int, k probes.AlertKind, l int, p probes.Probe) event {
		return event{variant: v, Alert: probes.Alert{Kind: k, Step: step, Layer: l, Probe: p}}
	}
	evs := []event{
		ev(0, 10, probes.AlertOutlier, 1, probes.DxVar),
		ev(1, 12, probes.AlertOutlier, 1, probes.DxVar),
		ev(0, 20, probes.AlertOutlier, 1, probes.DxVar),
		ev(0, 25, probes.AlertOutlier, 1, probes.DyVar),
		ev(1, 30, probes.AlertDivergence, -1, probes.NumProbes),
		ev(0, 40, probes.AlertOutlier, 1, probes.DxVar),
	}
	rows := eventRows(evs, -1, -1)
	if len(rows) != 4 || rows[0].count != 3 || rows[0].first != 10 || rows[0].Step != 40 {
		t.Fatalf("folded rows: %+v", rows)
	}
	if got := rowSteps(rows); !slices.Equal(got, []int{40, 12, 25, 30}) {
		t.Fatalf("row steps %v", got)
	}
	if rows := eventRows(evs, int(probes.AlertDivergence), -1); len(rows) != 1 || rows[0].Step != 30 {
		t.Fatalf("kind filter: %+v", rows)
	}
	if rows := eventRows(evs, -1, 1); len(rows) != 2 {
		t.Fatalf("variant filter: %+v", rows)
	}
	// The store keeps events in step order whatever the arrival order.
	s := newStore(fixtureMeta(2, 2, 10))
	for _, st := range []int{5, 3, 9, 1, 9, 4} {
		s.addEvent(ev(0, st, probes.AlertOverfit, -1, probes.NumProbes))
	}
	var steps []int
	for _, e := range s.events {
		steps = append(steps, e.Step)
	}
	if !slices.IsSorted(steps) {
		t.Fatalf("events out of order: %v", steps)
	}
}

func TestColFormat(t *testing.T) {
	f := colFormat([]float64{2.37e-4, 0.008575, 0.0115})
	if got := []string{f(2.37e-4), f(0.008575), f(0.0115)}; !slices.Equal(got, []string{"2.37e-4", "8.57e-3", "1.15e-2"}) &&
		!slices.Equal(got, []string{"2.37e-4", "8.58e-3", "1.15e-2"}) {
		t.Fatalf("mixed column: %q", got)
	}
	g := colFormat([]float64{2.604, 1.6})
	if g(1.6) != "1.60" || g(2.604) != "2.60" {
		t.Fatalf("plain column: %q %q", g(1.6), g(2.604))
	}
}

func TestFitColumns(t *testing.T) {
	cols := []column{
		{head: "a", w: 10},
		{head: "wide", w: 30, drop: 1},
		{head: "b", w: 8, drop: 2},
		{head: "c", w: 8, drop: 3},
	}
	// 11 + 31 + 9 + 9 = 60 cells with the separators (the last one is not
	// drawn): everything fits in 59.
	if got := fitColumns(cols, 59); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Fatalf("wide: %v", got)
	}
	// In 40 the wide column goes but both narrow ones still fit.
	if got := fitColumns(cols, 40); !slices.Equal(got, []int{0, 2, 3}) {
		t.Fatalf("narrow: %v", got)
	}
	if got := fitColumns(cols, 5); !slices.Equal(got, []int{0}) {
		t.Fatalf("tiny: %v", got)
	}
}

func TestJoinLegend(t *testing.T) {
	e := []string{"aaaa", "bbbb", "cccc", "dddd", "eeee"}
	if got := joinLegend(e, 10, 3); !slices.Equal(got, []string{"aaaa  bbbb", "cccc  dddd", "eeee"}) {
		t.Fatalf("fits in 3: %q", got)
	}
	// Two lines of 10: the second keeps room for the count.
	if got := joinLegend(e, 10, 2); !slices.Equal(got, []string{"aaaa  bbbb", "cccc +2"}) {
		t.Fatalf("counted: %q", got)
	}
	for _, l := range joinLegend(e, 10, 2) {
		if len(l) > 10 {
			t.Fatalf("line %q wider than 10", l)
		}
	}
	if got := joinLegend(nil, 10, 2); len(got) != 0 {
		t.Fatalf("empty: %q", got)
	}
}

// TestChartInfinities: a series that reaches ±Inf draws to the plot's
// edge, and a flat series still gets an axis.
func TestChartInfinities(t *testing.T) {
	m := fixtureModel(1, 1, 10, Options{NoColor: true})
	bs := []probes.Bucket{
		{FirstStep: 1, LastStep: 1, Min: 1, Max: 1, Last: 1, Count: 1},
		{FirstStep: 2, LastStep: 2, Min: 2, Max: 2, Last: 2, Count: 1},
		{FirstStep: 3, LastStep: 3, Min: math.Inf(1), Max: math.Inf(1), Last: math.Inf(1), Count: 1},
		{FirstStep: 4, LastStep: 4, Min: math.Inf(-1), Max: math.Inf(-1), Last: math.Inf(-1), Count: 1},
	}
	lines := m.drawChart([]chartSeries{{label: "a", bs: bs}}, chartSpec{w: 40, h: 8, lo: 1, hi: 4, cursor: -1})
	if len(lines) != 8 {
		t.Fatalf("%d lines", len(lines))
	}
	plot := func(l string) string {
		_, after, _ := strings.Cut(strings.ReplaceAll(l, "┤", "│"), "│")
		return after
	}
	top, bottom := plot(lines[0]), plot(lines[5])
	if strings.Trim(top, "\u2800") == "" || strings.Trim(bottom, "\u2800") == "" {
		t.Fatalf("±Inf not drawn at the edges:\n%s", strings.Join(lines, "\n"))
	}
	flat := []probes.Bucket{{FirstStep: 1, LastStep: 5, Min: 3, Max: 3, Last: 3, Count: 5}}
	lines = m.drawChart([]chartSeries{{label: "f", bs: flat}}, chartSpec{w: 40, h: 8, lo: 1, hi: 5, cursor: -1})
	if !strings.Contains(strings.Join(lines, "\n"), "3.0┤") {
		t.Fatalf("flat series axis:\n%s", strings.Join(lines, "\n"))
	}
}
