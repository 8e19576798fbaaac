package probes

import (
	"math"
	"testing"
)

func TestBatchShape(t *testing.T) {
	for _, tc := range []struct {
		s            BatchShape
		known, valid bool
		text         string
	}{
		{BatchShape{}, false, true, ""},
		{BatchShape{Rows: 412, Width: 5, Tokens: 1802}, true, true, "412×5 (1,802 tok)"},
		{BatchShape{Rows: 32, Width: 1, Tokens: 32}, true, true, "32×1 (32 tok)"},
		{BatchShape{Rows: 1000, Width: 1000, Tokens: 1000000}, true, true, "1,000×1,000 (1,000,000 tok)"},
		{BatchShape{Tokens: 7}, true, true, "0×0 (7 tok)"}, // only the tokens known
		{BatchShape{Rows: 2, Width: 5, Tokens: 11}, true, false, "2×5 (11 tok)"},
		{BatchShape{Rows: -1, Width: 5, Tokens: 1}, true, false, "-1×5 (1 tok)"},
		{BatchShape{Rows: 1, Width: 5, Tokens: -1}, true, false, "1×5 (-1 tok)"},
		{BatchShape{Rows: math.MaxInt, Width: 3, Tokens: math.MaxInt}, true, true, ""},
	} {
		if got := tc.s.Known(); got != tc.known {
			t.Errorf("%+v Known = %v", tc.s, got)
		}
		if got := tc.s.Valid(); got != tc.valid {
			t.Errorf("%+v Valid = %v", tc.s, got)
		}
		if got := tc.s.String(); tc.text != "" && got != tc.text {
			t.Errorf("%+v String = %q, want %q", tc.s, got, tc.text)
		}
	}
}

func TestNarrowCut(t *testing.T) {
	seq := func(n int, w func(i int) int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = w(i)
		}
		return out
	}
	for _, tc := range []struct {
		name           string
		widths         []int
		cut, narrow, n int
		ok             bool
	}{
		{"none", nil, 0, 0, 0, false},
		{"unknown only", []int{0, 0}, 0, 0, 0, false},
		{"one width (images)", seq(50, func(int) int { return 1 }), 0, 0, 50, false},
		// 2,000 batches, 22 of them at most 5 wide: the 20th narrowest is 5
		// wide, and the two more batches 5 wide are in by the tie rule.
		{"ties at the cut included", seq(2000, func(i int) int {
			if i < 22 {
				return 2 + i%4
			}
			return 6 + i%27
		}), 5, 22, 2000, true},
		// 100 batches: ⌈1⌉ = the single narrowest.
		{"one of a hundred", seq(100, func(i int) int { return 100 - i }), 1, 1, 100, true},
		// 101 batches: ⌈1.01⌉ = 2, the two narrowest.
		{"rounded up", seq(101, func(i int) int { return i + 3 }), 4, 2, 101, true},
		{"unknown left out", append(seq(100, func(i int) int { return i + 1 }), 0, 0, 0), 1, 1, 100, true},
	} {
		cut, narrow, n, ok := NarrowCut(tc.widths)
		if cut != tc.cut || narrow != tc.narrow || n != tc.n || ok != tc.ok {
			t.Errorf("%s: NarrowCut = %d, %d, %d, %v; want %d, %d, %d, %v", tc.name, cut, narrow, n, ok, tc.cut, tc.narrow, tc.n, tc.ok)
		}
	}
}
