package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

func TestClickWheel(t *testing.T) {
	zs := []zone{
		{kind: zoneTab, x0: 0, x1: 10, y0: 2, y1: 3, val: 0},
		{kind: zoneTab, x0: 10, x1: 20, y0: 2, y1: 3, val: 2},
		{kind: zoneChart, x0: 5, x1: 105, y0: 4, y1: 14, lo: 1, hi: 1000},
		{kind: zoneVariant, x0: 0, x1: 80, y0: 16, y1: 17, val: 3},
		{kind: zoneLayer, x0: 0, x1: 12, y0: 18, y1: 19, val: 5},
		{kind: zoneSort, x0: 20, x1: 28, y0: 15, y1: 16, val: 2},
		{kind: zoneProbe, x0: 30, x1: 48, y0: 3, y1: 4, val: int(probes.GVar)},
	}
	s := NewState(false, 1)
	if got := Click(s, zs, 12, 2); got.Screen != ScreenCompare {
		t.Errorf("tab click: screen %v", got.Screen)
	}
	if got := Click(s, zs, 55, 8); got.Cursor != 501 {
		t.Errorf("chart click: cursor %d, want 501", got.Cursor)
	}
	if got := Click(s, zs, 40, 16); got.Variant != 3 {
		t.Errorf("variant click: %d", got.Variant)
	}
	if got := Click(s, zs, 3, 18); got.Layer != 5 {
		t.Errorf("layer click: %d", got.Layer)
	}
	if got := Click(s, zs, 31, 3); got.Probe != probes.GVar {
		t.Errorf("probe click: %v", got.Probe)
	}
	// A heading is the Summary's (summaryState.sortBy), not the root's.
	if got := Click(s, zs, 21, 15); got != s {
		t.Errorf("sort click changed the root's state: %+v", got)
	}
	if got := Click(s, zs, 79, 23); got != s {
		t.Errorf("click on nothing changed the state: %+v", got)
	}
	help := s
	help.Help = true
	if got := Click(help, zs, 12, 2); got.Help || got.Screen != s.Screen {
		t.Errorf("click on help: %+v", got)
	}
	b := Bounds{Step: 1000, Layers: 8, LastStep: 1000}
	in := Wheel(s, zs, 55, 8, true, b)
	if in.ZoomSpan != 500 || in.ZoomEnd != 751 || in.Cursor != -1 {
		t.Errorf("wheel up on the chart: span %d end %d cursor %d", in.ZoomSpan, in.ZoomEnd, in.Cursor)
	}
	if out := Wheel(in, zs, 55, 8, false, b); out.ZoomSpan != 0 {
		t.Errorf("wheel down back out: span %d", out.ZoomSpan)
	}
	if got := Wheel(s, zs, 3, 20, false, b); got.Layer != 1 {
		t.Errorf("wheel elsewhere scrolls: layer %d", got.Layer)
	}
}

// TestMouseOnScreen: the zones recorded while drawing are where the
// things are: a click on a tab's title switches to it, a click in the
// overview's chart puts the cursor there and the legend reads it.
func TestMouseOnScreen(t *testing.T) {
	m := fixtureModel(4, 6, 200, Options{NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	lines := strings.Split(m.View().Content, "\n")
	x := strings.Index(lines[2], "7 Summary")
	m.Update(tea.MouseClickMsg{X: len([]rune(lines[2][:x])), Y: 2, Button: tea.MouseLeft})
	if m.st.Screen != ScreenSummary {
		t.Fatalf("click on the Summary tab: screen %v", m.st.Screen)
	}
	m.Update(keyPress("1"))
	_ = m.View()
	var ch *zone
	for i := range m.lay.zones {
		if m.lay.zones[i].kind == zoneChart {
			ch = &m.lay.zones[i]
		}
	}
	if ch == nil {
		t.Fatal("overview chart has no zone")
	}
	m.Update(tea.MouseClickMsg{X: (ch.x0 + ch.x1) / 2, Y: ch.y0 + 1, Button: tea.MouseLeft})
	if m.st.Cursor < 90 || m.st.Cursor > 110 {
		t.Fatalf("click mid-chart: cursor at %d, want ≈100", m.st.Cursor)
	}
	if out := m.View().Content; !strings.Contains(out, "cursor ") {
		t.Fatalf("cursor not shown:\n%s", out)
	}
}

// TestWheelIsTheKeys: away from a chart the wheel does what ↑/↓ do on
// every list (the layers, the Events rows, the Grid's pages, the config
// panel); over a chart what z/Z do with the cursor on the step under the
// mouse, leaving the cursor where it was; like ↑/↓ it scrolls the help,
// and like a key it only dismisses the quit question.
func TestWheelIsTheKeys(t *testing.T) {
	chart := []zone{{kind: zoneChart, x0: 0, x1: 100, y0: 0, y1: 10, lo: 1, hi: 1000}}
	b := Bounds{Variants: 3, Layers: 6, Step: 1000, LastStep: 1000, Page: 2}
	with := func(f func(*State)) State { s := NewState(false, 1); f(&s); return s }
	for _, tc := range []struct {
		name string
		in   State
	}{
		{"layers", with(func(s *State) { s.Layer = 2 })},
		{"summary", with(func(s *State) { s.Screen, s.Layer = ScreenSummary, 3 })},
		{"help", with(func(s *State) { s.Help = true })},
		{"quit question", with(func(s *State) { s.Confirm = true })},
	} {
		for _, up := range []bool{true, false} {
			k := "down"
			if up {
				k = "up"
			}
			if got, want := Wheel(tc.in, chart, 50, 20, up, b), first(Navigate(tc.in, k, b)); got != want {
				t.Errorf("%s: wheel (up %v) %+v, %s %+v", tc.name, up, got, k, want)
			}
		}
	}
	for _, cursor := range []int{-1, 300} {
		s := with(func(s *State) { s.Cursor, s.ZoomSpan = cursor, 400 })
		at := s
		at.Cursor = chart[0].stepAt(50)
		for k, up := range map[string]bool{"z": true, "Z": false} {
			want := first(Navigate(at, k, b))
			want.Cursor = cursor
			if got := Wheel(s, chart, 50, 5, up, b); got != want {
				t.Errorf("cursor %d: wheel over the chart (up %v) %+v, %s there %+v", cursor, up, got, k, want)
			}
		}
	}
	// The Events rows and the Grid's pages are the screens': the model
	// gives them the wheel off a chart, as their tables take ↑/↓.
	m := fixtureModel(3, 4, 200, Options{NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	for _, sc := range []string{"6", "8"} {
		m.Update(keyPress(sc))
		m.View()
		before := m.View().Content
		m.Update(tea.MouseWheelMsg{X: 50, Y: 28, Button: tea.MouseWheelDown})
		wheeled := m.View().Content
		m.Update(tea.MouseWheelMsg{X: 50, Y: 28, Button: tea.MouseWheelUp})
		m.Update(keyPress("down"))
		if keyed := m.View().Content; wheeled == before || keyed != wheeled {
			t.Errorf("screen %s: the wheel and ↓ differ (or do nothing):\n%s\n%s", sc, wheeled, keyed)
		}
	}
	// The config panel's lines are the panel's (its text holds the live
	// process's CPU, which moves: its state is compared).
	m.Update(keyPress("i"))
	m.View()
	m.Update(tea.MouseWheelMsg{X: 50, Y: 10, Button: tea.MouseWheelDown})
	wheeled := m.config.state
	m.Update(tea.MouseWheelMsg{X: 50, Y: 10, Button: tea.MouseWheelUp})
	m.Update(keyPress("down"))
	if wheeled != (configState{open: true, top: 1}) || m.config.state != wheeled {
		t.Errorf("config panel: the wheel gives %+v, ↓ %+v", wheeled, m.config.state)
	}
	m.Update(keyPress("i"))
	// While a filter is typed the wheel is the root's (off a chart, the
	// layer): it types nothing.
	m.Update(keyPress("8"))
	for _, k := range []string{"/", "l", "n"} {
		m.Update(keyPress(k))
	}
	m.View()
	layer := m.st.Layer
	m.Update(tea.MouseWheelMsg{X: 50, Y: 10, Button: tea.MouseWheelDown})
	if m.filter != (textFilter{pattern: "ln", typing: true}) || m.st.Layer != layer+1 {
		t.Errorf("the wheel while typing a filter: filter %+v, layer %d → %d", m.filter, layer, m.st.Layer)
	}
}

// first is a key's state without its Cmd.
func first(s State, _ tea.Cmd) State { return s }
