package tui

import (
	"strings"
	"testing"
)

// TestCoveredLinesNamed (issue 35): when one variant's line lies exactly
// under another's, the legend says which line covers it ("= layernorm"),
// on the Overview, the difference view and Compare; the leader is drawn
// last, so it is the one on top. Lines apart get no note.
func TestCoveredLinesNamed(t *testing.T) {
	meta := fixtureMeta(2, 2, 200)
	same := newLive(meta, newFakeFeed(), Options{})
	apart := newLive(meta, newFakeFeed(), Options{})
	for _, f := range fixtureFrames(meta, 200) {
		apart.data.add(&f)
		if f.Variant == 0 { // batchnorm gets layernorm's very numbers
			g := f
			same.data.add(&f)
			g.Variant = 1
			same.data.add(&g)
		}
	}
	for _, tc := range []struct {
		name   string
		screen Screen
		keys   []string
	}{
		{"Overview", ScreenOverview, nil},
		{"difference view", ScreenOverview, []string{"b", "d"}},
		{"Compare", ScreenCompare, nil},
	} {
		out := screenText(t, same, tc.screen, 120, 40, tc.keys...)
		if !strings.Contains(out, "batchnorm") || !strings.Contains(out, "= layernorm") {
			t.Errorf("%s: batchnorm's line is under layernorm's (the leader, drawn last) but the legend does not say so:\n%s", tc.name, out)
		}
		if strings.Contains(out, "= batchnorm") {
			t.Errorf("%s: the leader's line is drawn under batchnorm's:\n%s", tc.name, out)
		}
		if out := screenText(t, apart, tc.screen, 120, 40, tc.keys...); strings.Contains(out, "= layernorm") || strings.Contains(out, "= batchnorm") {
			t.Errorf("%s: lines apart noted as covered:\n%s", tc.name, out)
		}
	}
}

// TestWidestFirst: the Grid draws the series spanning the most first, so a
// narrow one lies on top of a wide one instead of under it.
func TestWidestFirst(t *testing.T) {
	flat := []bucket{{FirstStep: 1, LastStep: 1, Min: 1, Max: 1.1, Last: 1, Count: 1}}
	wide := []bucket{{FirstStep: 1, LastStep: 1, Min: 0, Max: 5, Last: 2, Count: 1}}
	got := widestFirst([]chartSeries{{label: "narrow", bs: flat}, {label: "wide", bs: wide}}, 1, 10)
	if got[0].label != "wide" || got[1].label != "narrow" {
		t.Errorf("order %s, %s: want wide first", got[0].label, got[1].label)
	}
}
