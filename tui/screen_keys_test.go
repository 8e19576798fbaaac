package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// The screens' own keys, tested as the pure functions their key tables
// are: a state, the facts of the frame's layout, a key; no Bubble Tea.

func TestEventsKeys(t *testing.T) {
	f := eventsFacts{steps: []int{10, 50, 90}, variants: []int{0, 2, 1}, nVariants: 3, page: 2}
	all := eventsState{kind: -1, variant: -1}
	with := func(s eventsState, g func(*eventsState)) eventsState { g(&s); return s }
	for _, tc := range []struct {
		name   string
		in     eventsState
		key    keyName
		replay bool
		want   eventsState
		seek   *seekMsg // the seek the key asks the root for
		unused bool     // the table leaves the key to the root
	}{
		{"down moves the row", all, "down", false, with(all, func(s *eventsState) { s.sel = 1 }), nil, false},
		{"j too", all, "j", false, with(all, func(s *eventsState) { s.sel = 1 }), nil, false},
		{"up clamps", all, "up", false, all, nil, false},
		{"pgdown a page", all, "pgdown", false, with(all, func(s *eventsState) { s.sel = 2 }), nil, false},
		{"end: the last row", all, "end", false, with(all, func(s *eventsState) { s.sel = 2 }), nil, false},
		{"home: the first", with(all, func(s *eventsState) { s.sel = 2 }), "home", false, all, nil, false},
		{"f: next kind", all, "f", false, with(all, func(s *eventsState) { s.kind = 0 }), nil, false},
		{"f wraps to all", with(all, func(s *eventsState) { s.kind = int(probes.NumAlertKinds) - 1 }), "f", false, all, nil, false},
		{"F: a variant, first row", with(all, func(s *eventsState) { s.sel = 2 }), "F", false, with(all, func(s *eventsState) { s.variant = 0 }), nil, false},
		{"F wraps to all", with(all, func(s *eventsState) { s.variant = 2 }), "F", false, all, nil, false},
		{"enter jumps in replay", with(all, func(s *eventsState) { s.sel = 2 }), "enter", true,
			with(all, func(s *eventsState) { s.sel = 2 }), &seekMsg{step: 90, variant: 1}, false},
		{"enter is inert live", all, "enter", false, all, nil, true},
		{"/ is the root's", all, "/", false, all, nil, true},
		{"q is the root's", all, "q", false, all, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.in
			cmd, ok := eventsKeys.handle(&s, f, tc.key, tc.replay)
			if ok == tc.unused || s != tc.want {
				t.Fatalf("%q: state %+v (handled %v), want %+v (handled %v)", tc.key, s, ok, tc.want, !tc.unused)
			}
			switch {
			case tc.seek == nil && cmd != nil:
				t.Fatalf("%q asked for %v", tc.key, cmd())
			case tc.seek != nil && (cmd == nil || cmd() != *tc.seek):
				t.Fatalf("%q: no seek to %+v", tc.key, *tc.seek)
			}
		})
	}
}

func TestSummaryKeys(t *testing.T) {
	for _, tc := range []struct {
		in   summaryState
		key  keyName
		want summaryState
	}{
		{summaryState{}, "o", summaryState{sortCol: 1}},
		{summaryState{sortCol: 3}, "o", summaryState{}},
		{summaryState{}, "O", summaryState{sortRev: true}},
	} {
		s := tc.in
		if _, ok := summaryKeys.handle(&s, 4, tc.key, false); !ok || s != tc.want {
			t.Errorf("%+v %q: %+v, want %+v", tc.in, tc.key, s, tc.want)
		}
	}
	var s summaryState
	if s.sortBy(2); s != (summaryState{sortCol: 2}) {
		t.Errorf("a click on heading 2: %+v", s)
	}
	if s.sortBy(2); s != (summaryState{sortCol: 2, sortRev: true}) {
		t.Errorf("a second click: %+v", s)
	}
}

func TestGridKeys(t *testing.T) {
	for _, tc := range []struct {
		in   int
		key  keyName
		want int
	}{
		{0, "down", 1}, {1, "pgdown", 2}, {2, "down", 2}, {2, "up", 1}, {0, "pgup", 0}, {1, "k", 0},
	} {
		s := tc.in
		if _, ok := gridKeys.handle(&s, 3, tc.key, false); !ok || s != tc.want {
			t.Errorf("page %d %q: %d, want %d", tc.in, tc.key, s, tc.want)
		}
	}
	s := 0
	if _, ok := gridKeys.handle(&s, 3, "/", false); ok {
		t.Error("the Grid took /, the root's")
	}
}

// TestWorkspaceKeys: the workspace list's keys, through its keyTable; every
// key its help line shows acts.
func TestWorkspaceKeys(t *testing.T) {
	ws := &Workspace{runs: make([]wsRun, 3), picked: map[int]bool{}}
	press := func(k keyName) tea.Cmd {
		t.Helper()
		cmd, ok := wsListKeys.handle(ws, struct{}{}, k, false)
		if !ok {
			t.Fatalf("%q not handled", k)
		}
		return cmd
	}
	press("down")
	press("j")
	press("down")
	if ws.sel != 2 {
		t.Fatalf("↓↓↓ over 3 runs: row %d, want 2 (clamped)", ws.sel)
	}
	press("k")
	press("space")
	if !ws.picked[1] {
		t.Fatal("space did not overlay row 1")
	}
	press("s")
	if ws.smooth != 1 {
		t.Fatalf("s: smoothing %d", ws.smooth)
	}
	if cmd := press("q"); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("q does not quit")
	}
	for _, b := range wsListKeys.help(false) {
		if b.Help().Key == "" {
			t.Errorf("help entry without a name: %v", b.Keys())
		}
	}
}

// TestKeyRouting: which table a key reaches on the model. The config
// panel closes on a key not its own and hands it on to the text filter's
// and the root's keys, never the screen's; the text filter typed on Events
// holds on the Grid; esc turns the chart cursor off before it clears the
// filter.
func TestKeyRouting(t *testing.T) {
	m := fixtureModel(3, 4, 200, Options{NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	ev := m.screens[ScreenEvents].(*eventsScreen)
	for _, k := range []string{"6", "i", "f"} {
		m.Update(keyPress(k))
	}
	if m.config.state.open || ev.state.kind != -1 {
		t.Fatalf("f over the panel: panel open %v, Events' kind %d (the screen took it)", m.config.state.open, ev.state.kind)
	}
	for _, k := range []string{"i", "/", "l", "n", "enter", "8"} {
		m.Update(keyPress(k))
	}
	if m.config.state.open || m.filter != (textFilter{pattern: "ln"}) {
		t.Fatalf("/ln over the panel: panel open %v, filter %+v", m.config.state.open, m.filter)
	}
	if out := m.View().Content; !strings.Contains(out, "filter /ln") {
		t.Fatalf("the Grid does not show the filter typed on Events:\n%s", out)
	}
	m.Update(keyPress("c"))
	m.Update(keyPress("esc"))
	if m.st.Cursor != -1 || m.filter.pattern != "ln" {
		t.Fatalf("esc with the cursor on: cursor %d, filter %q", m.st.Cursor, m.filter.pattern)
	}
	m.Update(keyPress("esc"))
	if m.filter.pattern != "" {
		t.Fatalf("esc with the cursor off kept the filter %q", m.filter.pattern)
	}
}
