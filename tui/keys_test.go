package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// quits reports whether a key's Cmd quits the dashboard.
func quits(cmd tea.Cmd) bool { return cmd != nil && cmd() == tea.Quit() }

func TestNavigate(t *testing.T) {
	b := Bounds{Variants: 3, Layers: 4, Step: 100, LastStep: 300, SeekStride: 15}
	live := NewState(false, 1)
	replay := NewState(true, 1)
	with := func(s State, f func(*State)) State { f(&s); return s }
	tests := []struct {
		name string
		in   State
		key  string
		want State
		quit bool // the key's Cmd is tea.Quit
	}{
		{"screen 3", live, "3", with(live, func(s *State) { s.Screen = ScreenCompare }), false},
		{"screen 6", live, "6", with(live, func(s *State) { s.Screen = ScreenEvents }), false},
		{"tab", live, "tab", with(live, func(s *State) { s.Screen = ScreenLayers }), false},
		{"tab wraps", with(live, func(s *State) { s.Screen = ScreenGrid }), "tab", live, false},
		{"shift+tab wraps", live, "shift+tab", with(live, func(s *State) { s.Screen = ScreenGrid }), false},
		{"right", live, "right", with(live, func(s *State) { s.Variant = 1 }), false},
		{"left wraps", live, "left", with(live, func(s *State) { s.Variant = 2 }), false},
		{"right wraps", with(live, func(s *State) { s.Variant = 2 }), "right", live, false},
		{"down", live, "down", with(live, func(s *State) { s.Layer = 1 }), false},
		{"up clamps", live, "up", live, false},
		{"down clamps", with(live, func(s *State) { s.Layer = 3 }), "down", with(live, func(s *State) { s.Layer = 3 }), false},
		{"p cycles probe", live, "p", with(live, func(s *State) { s.Probe = probes.DistVar }), false},
		{"p wraps", with(live, func(s *State) { s.Probe = probes.NumProbes - 1 }), "p", with(live, func(s *State) { s.Probe = 0 }), false},
		{"P back", live, "P", with(live, func(s *State) { s.Probe = probes.NumProbes - 1 }), false},
		{"log", live, "l", with(live, func(s *State) { s.Log = logOn }), false},
		{"smooth", live, "s", with(live, func(s *State) { s.Smooth = defaultSmooth + 1 }), false},
		{"pause", live, "space", with(live, func(s *State) { s.Paused = true }), false},
		{"unpause", with(live, func(s *State) { s.Paused = true }), "space", live, false},
		{"help", live, "?", with(live, func(s *State) { s.Help = true }), false},
		{"a stray key leaves the help open", with(live, func(s *State) { s.Help = true }), "3", with(live, func(s *State) { s.Help = true }), false},
		{"esc closes help", with(live, func(s *State) { s.Help = true }), "esc", live, false},
		{"down scrolls help", with(live, func(s *State) { s.Help = true }), "down", with(live, func(s *State) { s.Help, s.HelpTop = true, 1 }), false},
		{"up at the top stays", with(live, func(s *State) { s.Help = true }), "up", with(live, func(s *State) { s.Help = true }), false},
		{"q quits", live, "q", live, true},
		{"q only closes help", with(live, func(s *State) { s.Help = true }), "q", live, false},
		{"ctrl+c only closes help", with(live, func(s *State) { s.Help = true }), "ctrl+c", live, false},
		{"ctrl+c quits", live, "ctrl+c", live, true},
		{"unknown key", live, "x", live, false},
		// Replay keys are inert live.
		{"live +", live, "+", live, false},
		{"live [", live, "[", live, false},
		{"live G", live, "G", live, false},
		{"live enter", with(live, func(s *State) { s.Screen = ScreenEvents }), "enter", with(live, func(s *State) { s.Screen = ScreenEvents }), false},
		{"speed up", replay, "+", with(replay, func(s *State) { s.Speed = 2 }), false},
		{"speed down", replay, "-", with(replay, func(s *State) { s.Speed = 0.5 }), false},
		{"speed top clamps", with(replay, func(s *State) { s.Speed = 64 }), "+", with(replay, func(s *State) { s.Speed = 64 }), false},
		{"speed bottom clamps", with(replay, func(s *State) { s.Speed = 0.25 }), "-", with(replay, func(s *State) { s.Speed = 0.25 }), false},
		{"odd speed up", with(replay, func(s *State) { s.Speed = 3 }), "+", with(replay, func(s *State) { s.Speed = 4 }), false},
		{"odd speed down", with(replay, func(s *State) { s.Speed = 3 }), "-", with(replay, func(s *State) { s.Speed = 2 }), false},
		{"seek back", replay, "[", with(replay, func(s *State) { s.SeekTo = 85 }), false},
		{"seek forward", replay, "]", with(replay, func(s *State) { s.SeekTo = 115 }), false},
		{"start", replay, "g", with(replay, func(s *State) { s.SeekTo = 0 }), false},
		{"end", replay, "G", with(replay, func(s *State) { s.SeekTo = 301 }), false},
		{"enter elsewhere does nothing", replay, "enter", replay, false},
		{"end live: the last layer", live, "end", with(live, func(s *State) { s.Layer = 3 }), false},
		{"home live: the first", with(live, func(s *State) { s.Layer = 2 }), "home", live, false},
		{"home in replay: the run's start", replay, "home", with(replay, func(s *State) { s.SeekTo = 0 }), false},
		{"end in replay: past its last step", replay, "end", with(replay, func(s *State) { s.SeekTo = 301 }), false},
		{"pgdown, no page known: one layer", live, "pgdown", with(live, func(s *State) { s.Layer = 1 }), false},
		{"i is the config panel's: the root does nothing", live, "i", live, false},
		{"/ is the text filter's: the root does nothing", with(live, func(s *State) { s.Screen = ScreenEvents }), "/", with(live, func(s *State) { s.Screen = ScreenEvents }), false},
		{"stale seek request cleared", with(replay, func(s *State) { s.SeekTo = 7 }), "x", replay, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, cmd := Navigate(tc.in, tc.key, b)
			if got != tc.want || quits(cmd) != tc.quit {
				t.Errorf("Navigate(%+v, %q) = %+v (quit %v), want %+v (quit %v)", tc.in, tc.key, got, quits(cmd), tc.want, tc.quit)
			}
		})
	}
}

// TestNavigateV2: the chart cursor, zoom, variant toggles, event filters,
// probe skipping, and the quit confirmation of a live run.
func TestNavigateV2(t *testing.T) {
	b := Bounds{Variants: 3, Layers: 4, Step: 1000, LastStep: 1000, CellSteps: 10,
		Probes: []probes.Probe{probes.DistMu, probes.GMu, probes.DxVar}}
	run := b
	run.Running = true
	live := NewState(false, 1)
	with := func(s State, f func(*State)) State { f(&s); return s }
	cur := with(live, func(s *State) { s.Cursor = 500 })
	events := with(live, func(s *State) { s.Screen = ScreenEvents })
	summary := with(live, func(s *State) { s.Screen = ScreenSummary })
	tests := []struct {
		name string
		in   State
		key  string
		b    Bounds
		want State
		quit bool
	}{
		{"c turns the cursor on at the latest step", live, "c", b, with(live, func(s *State) { s.Cursor = 1000 }), false},
		{"c turns it off", cur, "c", b, live, false},
		{"esc turns it off", cur, "esc", b, live, false},
		{"cursor left by one column", cur, "left", b, with(live, func(s *State) { s.Cursor = 490 }), false},
		{"cursor right ×10", cur, "shift+right", b, with(live, func(s *State) { s.Cursor = 600 }), false},
		{"cursor clamps at the end", cur, "shift+right", Bounds{Step: 520, CellSteps: 10}, with(live, func(s *State) { s.Cursor = 520 }), false},
		{"cursor clamps at step 1", with(live, func(s *State) { s.Cursor = 3 }), "left", b, with(live, func(s *State) { s.Cursor = 1 }), false},
		{"z halves, following the end", live, "z", b, with(live, func(s *State) { s.ZoomSpan = 500 }), false},
		{"z around the cursor", cur, "z", b, with(cur, func(s *State) { s.ZoomSpan = 500; s.ZoomEnd = 750 }), false},
		{"Z doubles", with(live, func(s *State) { s.ZoomSpan = 200 }), "Z", b, with(live, func(s *State) { s.ZoomSpan = 400 }), false},
		{"Z back to all", with(live, func(s *State) { s.ZoomSpan = 500 }), "Z", b, live, false},
		{"0 shows all", with(live, func(s *State) { s.ZoomSpan = 50; s.ZoomEnd = 70 }), "0", b, live, false},
		{"n: last 100 steps of 1000", live, "n", b, with(live, func(s *State) { s.ZoomSpan = 100 }), false},
		{"n after the shortest: all", with(live, func(s *State) { s.ZoomSpan = 100 }), "n", b, live, false},
		{"v hides the selected variant", with(live, func(s *State) { s.Variant = 2 }), "v", b, with(live, func(s *State) { s.Variant = 2; s.Hidden = 4 }), false},
		{"v again shows it", with(live, func(s *State) { s.Hidden = 1 }), "v", b, live, false},
		{"V shows all", with(live, func(s *State) { s.Hidden = 7 }), "V", b, live, false},
		{"f is the Events screen's: the root does nothing", events, "f", b, events, false},
		{"p skips unmeasured probes", with(live, func(s *State) { s.Probe = probes.GMu }), "p", b, with(live, func(s *State) { s.Probe = probes.DxVar }), false},
		{"p wraps in the list", with(live, func(s *State) { s.Probe = probes.DxVar }), "p", b, live, false},
		{"P from outside the list", with(live, func(s *State) { s.Probe = probes.GVar }), "P", b, with(live, func(s *State) { s.Probe = probes.GMu }), false},
		{"o is the Summary's: the root does nothing", summary, "o", b, summary, false},
		{"q on a live run asks", live, "q", run, with(live, func(s *State) { s.Confirm = true }), false},
		{"q twice quits", with(live, func(s *State) { s.Confirm = true }), "q", run, live, true},
		{"y quits", with(live, func(s *State) { s.Confirm = true }), "y", run, live, true},
		{"another key cancels and does nothing", with(live, func(s *State) { s.Confirm = true }), "3", run, live, false},
		{"q on an ended live run quits", live, "q", b, live, true},
		{"? then q does not quit", with(live, func(s *State) { s.Help = true }), "q", run, live, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, cmd := Navigate(tc.in, tc.key, tc.b); got != tc.want || quits(cmd) != tc.quit {
				t.Errorf("Navigate(%+v, %q) = %+v (quit %v), want %+v (quit %v)", tc.in, tc.key, got, quits(cmd), tc.want, tc.quit)
			}
		})
	}
}

func TestNavigateSeekBackClampsAtZero(t *testing.T) {
	s, _ := Navigate(NewState(true, 1), "[", Bounds{Step: 5, SeekStride: 20})
	if s.SeekTo != 0 {
		t.Fatalf("SeekTo = %d, want 0", s.SeekTo)
	}
}

func TestNavigateNoVariants(t *testing.T) {
	s, _ := Navigate(NewState(false, 1), "right", Bounds{})
	if s.Variant != 0 {
		t.Fatalf("Variant = %d with no variants", s.Variant)
	}
}
