package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestHeaderReadsFrameLayout: the header's "log" flag is the scale of the
// body drawn under it in the same frame. The header used to be painted
// before the body decided its scale, so after l the header lacked "log"
// until the next redraw, which in a paused or finished replay is the next
// key. One Update then one View, as a paused dashboard gets; a second
// redraw with nothing new must not change the screen.
func TestHeaderReadsFrameLayout(t *testing.T) {
	for _, sc := range []string{"1", "2", "3", "5", "8"} {
		t.Run("screen "+sc, func(t *testing.T) {
			m := fixtureModel(3, 4, 200, Options{NoColor: true})
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			m.Update(keyPress(sc))
			before := m.View().Content
			m.Update(keyPress("l"))
			after := m.View().Content
			if before == after {
				t.Fatal("l changed nothing")
			}
			if headerLog(before) == headerLog(after) {
				t.Fatalf("l did not change the header's log flag (%v):\n%s", headerLog(after), after)
			}
			m.dirty = true
			if again := m.View().Content; again != after {
				t.Fatalf("a redraw with nothing new changed the screen: first\n%s\nthen\n%s", after, again)
			}
		})
	}
}

// headerLog: the header's flags (the tab line) say the chart is on a log
// axis.
func headerLog(screen string) bool {
	return strings.Contains(strings.Split(screen, "\n")[headerH-1], " log")
}
