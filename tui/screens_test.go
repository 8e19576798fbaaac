package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/normtop/normtop/probes"
)

// screenText renders screen s of a fixture dashboard as plain text.
func screenText(t *testing.T, m *Model, s Screen, w, h int, keys ...string) string {
	t.Helper()
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.st.Screen = s
	for _, k := range keys {
		m.Update(keyPress(k))
	}
	m.dirty = true
	out := ansi.Strip(m.View().Content)
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Fatalf("%s: %d lines, want %d", s.Title(), len(lines), h)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) != w {
			t.Fatalf("%s: line %d is %d cells wide, want %d: %q", s.Title(), i, ansi.StringWidth(l), w, l)
		}
	}
	return out
}

// TestScreenFacts checks that each screen shows the fixture's numbers, not
// just that it looks like last time (the goldens).
func TestScreenFacts(t *testing.T) {
	meta := fixtureMeta(4, 6, 200)
	frames := fixtureFrames(meta, 200)
	last := func(v int) probes.Frame {
		var f probes.Frame
		for _, fr := range frames {
			if fr.Variant == v {
				f = fr
			}
		}
		return f
	}
	tests := []struct {
		screen Screen
		keys   []string
		want   []string
	}{
		{ScreenOverview, nil, []string{
			"diverged at 150", // adanorm, ranked last
			"done",
			probes.FormatValue(last(0).Eval[0].TrainLoss), // the train loss its gap used (probes.VariantStanding.Train)
			"0.0400", // gap; fixture: val = train + 0.05, Eval.TrainLoss = train + 0.01
			"50.0",
			"train ─ (ema 0.97, raw faint) and val •",
		}},
		{ScreenSummary, nil, []string{
			"★", "final acc", "diverged at 150", probes.FormatValue(last(0).Eval[0].TrainLoss), "88.00%",
		}},
		// batchnorm (variant 1), layer block0.ln2 had an outlier alert on
		// dist_var at step 120: not the value shown at 200 (TestOutlierMarkedOnlyThere).
		{ScreenLayers, []string{"right", "p"}, []string{"batchnorm", "block0.ln2"}},
		{ScreenCompare, []string{"p"}, []string{"dist_var", "‖σ²_B − σ²‖₂/d", "layernorm", "batchnorm"}},
		{ScreenSpectrum, nil, []string{
			fmt.Sprintf("%8.2f", last(0).Spectrum.EffRank),
			fmt.Sprintf("%8.2f", frames[0+4*49].Spectrum.EffRank), // first spectrum, step 50
			"32",
		}},
		// dx_var/dy_var = 1e-4/2e-4 in the fixture.
		{ScreenGradients, nil, []string{"0.5", "mean∂x", "var x/y"}},
		{ScreenEvents, nil, []string{"events 3", "outlier", "divergence", "overfit", "diverged at step 150 (last good 149)"}},
	}
	for _, tc := range tests {
		t.Run(tc.screen.Title(), func(t *testing.T) {
			m := fixtureModel(4, 6, 200, Options{})
			out := screenText(t, m, tc.screen, 120, 40, tc.keys...)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("%s lacks %q:\n%s", tc.screen.Title(), w, out)
				}
			}
		})
	}
}

// TestOutlierMarkedOnlyThere: the layers screen marks exactly the cell of
// the outlier alert while the value shown is the alerted one (the fixture
// alerts at step 120); once later values are shown, no cell is marked.
func TestOutlierMarkedOnlyThere(t *testing.T) {
	for _, tc := range []struct{ steps, marks int }{{120, 1}, {200, 0}} {
		m := fixtureModel(4, 6, tc.steps, Options{})
		outlierMarks(t, screenText(t, m, ScreenLayers, 160, 48, "right", "p"), tc.marks)
	}
}

func outlierMarks(t *testing.T, out string, want int) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		n := strings.Count(line, "!")
		switch {
		case strings.HasPrefix(line, "block0.ln2"):
			if n != want {
				t.Fatalf("outlier row has %d marks, want %d: %q", n, want, line)
			}
		case strings.HasPrefix(line, "block"):
			if n != 0 {
				t.Fatalf("row without an outlier is marked: %q", line)
			}
		}
	}
}

// TestEveryScreenEverySize: each screen fills exactly w×h cells at sizes
// from 80×24 to 240×70, with 1 to 8 variants, and never panics.
func TestEveryScreenEverySize(t *testing.T) {
	for _, nv := range []int{1, 3, 8} {
		for _, size := range [][2]int{{80, 24}, {81, 25}, {100, 30}, {160, 48}, {240, 70}} {
			m := fixtureModel(nv, 12, 60, Options{})
			for s := range numScreens {
				screenText(t, m, s, size[0], size[1])
			}
		}
	}
	// And with no data at all.
	m := newLive(fixtureMeta(2, 3, 10), newFakeFeed(), Options{})
	for s := range numScreens {
		screenText(t, m, s, 80, 24)
	}
}
