package tui

import (
	"math"
	"slices"
	"strings"
	"testing"
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
		{1, 600, 2, []int{200, 400, 600}}, // a Grid chart: a nice step of 1000 would label nothing
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
