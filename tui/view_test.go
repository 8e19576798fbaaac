package tui

import (
	"math"
	"testing"

	"github.com/normtop/normtop/probes"
)

func TestAlignedOf(t *testing.T) {
	dense := probes.NewHistory(64)
	for s := 1; s <= 100; s++ {
		dense.Add(s, float64(s))
	}
	sparse := probes.NewHistory(64)
	for s := 20; s <= 100; s += 20 {
		sparse.Add(s, float64(s))
	}
	early := probes.NewHistory(64)
	for s := 1; s <= 50; s++ {
		early.Add(s, 1)
	}
	nan := math.NaN()
	tests := []struct {
		name string
		h    *probes.History
		want []float64
	}{
		// 10 columns over steps 1..100: column i ends at step 10(i+1).
		{"dense", dense, []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}},
		{"sparse holds the last value", sparse, []float64{nan, 20, 20, 40, 40, 60, 60, 80, 80, 100}},
		{"a series that stopped early", early, []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := alignedOf(tc.h, 10, 1, 100, false, false)
			if len(got) != len(tc.want) {
				t.Fatalf("len %d", len(got))
			}
			for i := range got {
				if !(got[i] == tc.want[i] || math.IsNaN(got[i]) && math.IsNaN(tc.want[i])) {
					t.Fatalf("column %d = %v, want %v (all: %v)", i, got[i], tc.want[i], got)
				}
			}
		})
	}
	if alignedOf(nil, 10, 1, 100, false, false) != nil {
		t.Fatal("nil history gave points")
	}
	lg := alignedOf(dense, 10, 1, 100, false, true)
	if lg[9] != 2 {
		t.Fatalf("log10(100) = %v", lg[9])
	}
}

func TestFmtVal(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{math.NaN(), "–"}, {math.Inf(1), "+Inf"}, {math.Inf(-1), "-Inf"}, {0, "0"},
		{0.5, "0.5"}, {1.23456, "1.235"}, {12345, "12345"}, {999.96, "1000"}, {1e-9, "1.00e-09"}, {123456, "1.23e+05"},
		{-0.002, "-0.002"},
	}
	for _, tc := range tests {
		if got := fmtVal(tc.in); got != tc.want {
			t.Errorf("fmtVal(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSparkline(t *testing.T) {
	h := probes.NewHistory(16)
	for s := 1; s <= 8; s++ {
		h.Add(s, float64(s))
	}
	if got := sparkline(h, 8, false, false); got != "▁▂▃▄▅▆▇█" {
		t.Fatalf("sparkline = %q", got)
	}
	if got := sparkline(nil, 4, false, false); got != "    " {
		t.Fatalf("empty sparkline = %q", got)
	}
}

func TestIsOutlier(t *testing.T) {
	b := func(vs ...float64) []probes.Bucket {
		out := make([]probes.Bucket, len(vs))
		for i, v := range vs {
			out[i] = probes.Bucket{Last: v, Count: 1}
		}
		return out
	}
	tests := []struct {
		name    string
		alerted bool
		bs      []probes.Bucket
		want    bool
	}{
		{"alert", true, nil, true},
		{"spike", false, b(1, 1, 1, 1, 1, 11), true},
		{"below 10×", false, b(1, 1, 1, 1, 1, 9), false},
		{"too short", false, b(1, 100), false},
		{"zero median", false, b(0, 0, 0, 0, 5), false},
	}
	for _, tc := range tests {
		if got := isOutlier(tc.alerted, tc.bs); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
}

func TestShortenPath(t *testing.T) {
	tests := []struct {
		p    string
		w    int
		want string
	}{
		{"runs/a.ntr", 20, "runs/a.ntr"},
		{"/very/long/directory/runs/20261122-mlp.ntr", 20, "…ns/20261122-mlp.ntr"},
		{"abc", 1, "abc"},
	}
	for _, tc := range tests {
		got := shortenPath(tc.p, tc.w)
		if got != tc.want {
			t.Errorf("shortenPath(%q, %d) = %q, want %q", tc.p, tc.w, got, tc.want)
		}
		if tc.w >= 2 && len([]rune(got)) > tc.w {
			t.Errorf("%q longer than %d", got, tc.w)
		}
	}
}
