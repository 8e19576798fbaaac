package tui

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// TestCursorReadout: the legend reads every variant's value at the cursor.
func TestCursorReadout(t *testing.T) {
	m := fixtureModel(4, 2, 200, Options{NoColor: true})
	m.w, m.h = 120, 40
	m.st.Cursor = 100
	m.st.Smooth = 0 // raw values
	for i := range m.data.variants {
		bs := m.buckets(m.data.variants[i].series(seriesTrainLoss))
		want := fixtureFrame(&m.data.meta, i, 100, 200).TrainLoss
		if got := m.readout(bs); got != probes.FormatValue(want) {
			t.Errorf("variant %d at step 100: %s, want %s", i, got, probes.FormatValue(want))
		}
	}
	m.st.Cursor = -1
	bs := m.buckets(m.data.variants[0].series(seriesTrainLoss))
	if got, want := m.readout(bs), probes.FormatValue(fixtureFrame(&m.data.meta, 0, 200, 200).TrainLoss); got != want {
		t.Errorf("no cursor: %s, want the latest %s", got, want)
	}
	// Evaluations: between two (every 20 steps) the earlier holds, and
	// past the last one too, while a step series has nothing there.
	m.st.Cursor = 115
	va := m.buckets(m.data.variants[0].series(seriesValLoss))
	if got, want := probes.FormatValue(m.readoutVal(va, true)), probes.FormatValue(fixtureFrame(&m.data.meta, 0, 100, 200).Eval[0].Loss); got != want {
		t.Errorf("val at 115: %s, want the step-100 eval %s", got, want)
	}
	ada := m.data.variants[3]
	m.st.Cursor = 170 // adanorm diverged at 150: its last eval was at 140
	if got, want := probes.FormatValue(m.readoutVal(m.buckets(ada.series(seriesValLoss)), true)), probes.FormatValue(fixtureFrame(&m.data.meta, 3, 140, 200).Eval[0].Loss); got != want {
		t.Errorf("adanorm val at 170: %s, want %s", got, want)
	}
	if got := m.readout(m.buckets(ada.series(seriesTrainLoss))); got != "–" {
		t.Errorf("adanorm train at 170 (after it diverged): %s, want –", got)
	}
	// On a log axis the readout is the value, not its logarithm.
	m.st.Log, m.st.Cursor = logOn, 50
	m.useLog()
	bs = m.buckets(m.data.variants[1].series(seriesTrainLoss))
	if got, want := m.readout(bs), probes.FormatValue(fixtureFrame(&m.data.meta, 1, 50, 200).TrainLoss); got != want {
		t.Errorf("log axis: %s, want %s", got, want)
	}
}

// TestChartDraws: the chart has exactly h lines of w cells, y labels at
// round values, the spike's dot in the top row, and the warm-up window on
// the axis line.
func TestChartDraws(t *testing.T) {
	m := fixtureModel(1, 1, 10, Options{NoColor: true})
	var bs []bucket
	for s := 1; s <= 200; s++ {
		v := 1.0
		if s == 137 {
			v = 9.5
		}
		bs = append(bs, bucket{FirstStep: s, LastStep: s, Min: v, Max: v, Last: v, Count: 1})
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
	bs := []bucket{
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
	flat := []bucket{{FirstStep: 1, LastStep: 5, Min: 3, Max: 3, Last: 3, Count: 5}}
	lines = m.drawChart([]chartSeries{{label: "f", bs: flat}}, chartSpec{w: 40, h: 8, lo: 1, hi: 5, cursor: -1})
	if !strings.Contains(strings.Join(lines, "\n"), "3.0┤") {
		t.Fatalf("flat series axis:\n%s", strings.Join(lines, "\n"))
	}
}
