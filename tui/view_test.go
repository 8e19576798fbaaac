package tui

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestSparkline(t *testing.T) {
	h := newHistory(16)
	for s := 1; s <= 8; s++ {
		h.Add(s, float64(s))
	}
	if got := sparkline(h, 8, 0, false); got != "▁▂▃▄▅▆▇█" {
		t.Fatalf("sparkline = %q", got)
	}
	if got := sparkline(nil, 4, 0, false); got != "    " {
		t.Fatalf("empty sparkline = %q", got)
	}
}

func TestIsOutlier(t *testing.T) {
	b := func(vs ...float64) []bucket {
		out := make([]bucket, len(vs))
		for i, v := range vs {
			out[i] = bucket{Last: v, Count: 1}
		}
		return out
	}
	tests := []struct {
		name    string
		alerted bool
		bs      []bucket
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

// TestCellWidth: the fast path agrees with ansi.StringWidth, and other
// text falls back to it.
func TestCellWidth(t *testing.T) {
	for _, s := range []string{
		"", "abc", "\x1b[1;38;5;117m⣿⣀⠀\x1b[m│┤└─┬┄ 1.5", "\x1b[7m 1 Overview \x1b[m",
		"σ_i/σ_1 … ★ 漢字", "tab\there", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "é",
	} {
		if got, want := cellWidth(s), ansi.StringWidth(s); got != want {
			t.Errorf("cellWidth(%q) = %d, want %d", s, got, want)
		}
	}
}
