package tui

import (
	"math"
	"testing"
)

// TestDownsampleSpike: a one-step spike in 100,000 steps survives into
// the chart's columns at every width, through the bounded history too.
func TestDownsampleSpike(t *testing.T) {
	const steps, spikeAt = 100_000, 61_237
	h := newHistory(seriesCapacity)
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
	short := []bucket{{FirstStep: 1, LastStep: 10, Min: 1, Max: 2, Last: 2, Count: 10}}
	cols = downsample(short, 1, 100, 10, cols)
	if cols[0].N == 0 || cols[1].N != 0 || cols[9].N != 0 {
		t.Fatalf("short series: %+v", cols)
	}
}

func TestDownsampleExact(t *testing.T) {
	// One point per step, as many columns as steps: each column is its point.
	var bs []bucket
	for s := 1; s <= 8; s++ {
		v := float64(s * s)
		bs = append(bs, bucket{FirstStep: s, LastStep: s, Min: v, Max: v, Last: v, Count: 1})
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
	var bs []bucket
	for s := 100; s <= 500; s += 100 {
		bs = append(bs, bucket{FirstStep: s, LastStep: s, Min: float64(s), Max: float64(s), Last: float64(s), Count: 1})
	}
	// A coarse bucket covering 501..600 ending at 42.
	bs = append(bs, bucket{FirstStep: 501, LastStep: 600, Min: 1, Max: 99, Last: 42, Count: 100})
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
