package tui

import (
	"strings"
	"testing"
)

// TestRankingSaysWhichValSteps (issue 35): live, a variant that runs ahead
// has a newer validation than the others; the ranking says at which step
// each variant's val was taken, and says nothing when they are of one step.
func TestRankingSaysWhichValSteps(t *testing.T) {
	for _, tc := range []struct {
		name  string
		upTo  []int // steps each variant has run
		want  string
		noted bool
	}{
		{"one step", []int{200, 200}, "", false},
		{"different steps", []int{200, 190}, "val of different steps, each its newest: ", true},
	} {
		meta := fixtureMeta(2, 2, 200)
		m := newLive(meta, newFakeFeed(), Options{})
		for _, f := range fixtureFrames(meta, 200) {
			if f.Step <= tc.upTo[f.Variant] {
				m.data.add(&f)
			}
		}
		out := screenText(t, m, ScreenOverview, 120, 40)
		if got := strings.Contains(out, "val of different steps"); got != tc.noted {
			t.Errorf("%s: note shown %v, want %v:\n%s", tc.name, got, tc.noted, out)
		}
		if tc.noted && !(strings.Contains(out, "layernorm 200") && strings.Contains(out, "batchnorm 180")) {
			t.Errorf("%s: the note does not name each variant's val step:\n%s", tc.name, out)
		}
	}
}
