package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
)

// TestHelpScrollsAt80x24 (issue 35): at 80×24 the full help is longer than
// the screen; it says so and scrolls to its end (the screen's guide, whole),
// and a stray key leaves it open.
func TestHelpScrollsAt80x24(t *testing.T) {
	m := fixtureModel(4, 6, 200, Options{})
	top := screenText(t, m, ScreenOverview, 80, 24, "?")
	if !strings.Contains(top, "esc or ? closes") || !strings.Contains(top, "scroll (lines 1–") {
		t.Errorf("the help does not say how to scroll and close it:\n%s", top)
	}
	m = fixtureModel(4, 6, 200, Options{})
	end := screenText(t, m, ScreenOverview, 80, 24, "?", "x", "end")
	if !m.st.Help {
		t.Fatal("a stray key closed the help")
	}
	guide := wrapWords(m.screens[ScreenOverview].Guide(), 80)
	if last := strings.TrimSpace(guide[len(guide)-1]); !strings.Contains(end, last) {
		t.Errorf("scrolled to the end, the guide's last line %q is not shown:\n%s", last, end)
	}
	m.Update(keyPress("esc"))
	if m.st.Help {
		t.Error("esc does not close the help")
	}
}

// TestGoldenHelp: the full help at 80×24 (its top, and scrolled to the
// end) and at 160×48, colour profile pinned.
func TestGoldenHelp(t *testing.T) {
	for _, tc := range []struct {
		name string
		w, h int
		keys []string
	}{
		{"top_80x24", 80, 24, []string{"?"}},
		{"end_80x24", 80, 24, []string{"?", "end"}},
		{"top_160x48", 160, 48, []string{"?"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fixtureModel(4, 6, 200, Options{})
			out := runScreen(t, m, tc.w, tc.h, tc.keys...)
			golden.RequireEqual(t, pinned(t, out, colorprofile.ANSI256))
		})
	}
}
