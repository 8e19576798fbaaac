package report

import (
	"math"
	"strings"
	"testing"
)

// TestLogTicksPerDecade (issue 35): a log axis labels at least three ticks
// per decade it spans (1, 2, 5 × 10^k), and at least three on a range
// inside one decade, in short one-digit labels.
func TestLogTicksPerDecade(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string // labels, in order
	}{
		{6e-6, 2e-4, []string{"1e-5", "2e-5", "5e-5", "1e-4", "2e-4"}},
		{1, 1000, []string{"1", "2", "5", "10", "20", "50", "100", "200", "500", "1000"}},
		{3.1, 8.9, []string{"4", "5", "6", "7", "8"}},
	} {
		var got []string
		for _, tk := range (logTicker{}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("[%g, %g]: labels %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
		if decades := math.Log10(tc.hi / tc.lo); float64(len(got)) < math.Max(3, 3*math.Floor(decades)) {
			t.Errorf("[%g, %g]: %d labels over %.1f decades", tc.lo, tc.hi, len(got), decades)
		}
	}
}

// TestWrapTitle: a title wider than a panel goes on lines of at most n
// characters, broken between words, every word kept.
func TestWrapTitle(t *testing.T) {
	title := "g_var, first norm layer (block0.ln1): runs/20261205T215009Z-transformer-seed1.ntr, centred mean over 50 values"
	got := wrapText(title, titleChars)
	for _, l := range strings.Split(got, "\n") {
		if len([]rune(l)) > titleChars && strings.Contains(l, " ") {
			t.Errorf("line %q is %d characters", l, len([]rune(l)))
		}
	}
	if strings.Join(strings.Fields(got), " ") != title {
		t.Errorf("words lost: %q", got)
	}
}
