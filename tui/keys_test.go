package tui

import (
	"testing"

	"github.com/normtop/normtop/probes"
)

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
	}{
		{"screen 3", live, "3", with(live, func(s *State) { s.Screen = ScreenCompare })},
		{"screen 6", live, "6", with(live, func(s *State) { s.Screen = ScreenEvents })},
		{"tab", live, "tab", with(live, func(s *State) { s.Screen = ScreenLayers })},
		{"tab wraps", with(live, func(s *State) { s.Screen = ScreenGrid }), "tab", live},
		{"shift+tab wraps", live, "shift+tab", with(live, func(s *State) { s.Screen = ScreenGrid })},
		{"right", live, "right", with(live, func(s *State) { s.Variant = 1 })},
		{"left wraps", live, "left", with(live, func(s *State) { s.Variant = 2 })},
		{"right wraps", with(live, func(s *State) { s.Variant = 2 }), "right", live},
		{"down", live, "down", with(live, func(s *State) { s.Layer = 1 })},
		{"up clamps", live, "up", live},
		{"down clamps", with(live, func(s *State) { s.Layer = 3 }), "down", with(live, func(s *State) { s.Layer = 3 })},
		{"p cycles probe", live, "p", with(live, func(s *State) { s.Probe = probes.DistVar })},
		{"p wraps", with(live, func(s *State) { s.Probe = probes.NumProbes - 1 }), "p", with(live, func(s *State) { s.Probe = 0 })},
		{"P back", live, "P", with(live, func(s *State) { s.Probe = probes.NumProbes - 1 })},
		{"log", live, "l", with(live, func(s *State) { s.Log = logOn })},
		{"smooth", live, "s", with(live, func(s *State) { s.Smooth = defaultSmooth + 1 })},
		{"pause", live, "space", with(live, func(s *State) { s.Paused = true })},
		{"unpause", with(live, func(s *State) { s.Paused = true }), "space", live},
		{"help", live, "?", with(live, func(s *State) { s.Help = true })},
		{"a stray key leaves the help open", with(live, func(s *State) { s.Help = true }), "3", with(live, func(s *State) { s.Help = true })},
		{"esc closes help", with(live, func(s *State) { s.Help = true }), "esc", live},
		{"down scrolls help", with(live, func(s *State) { s.Help = true }), "down", with(live, func(s *State) { s.Help, s.HelpTop = true, 1 })},
		{"up at the top stays", with(live, func(s *State) { s.Help = true }), "up", with(live, func(s *State) { s.Help = true })},
		{"q quits", live, "q", with(live, func(s *State) { s.Quit = true })},
		{"q only closes help", with(live, func(s *State) { s.Help = true }), "q", live},
		{"ctrl+c only closes help", with(live, func(s *State) { s.Help = true }), "ctrl+c", live},
		{"ctrl+c quits", live, "ctrl+c", with(live, func(s *State) { s.Quit = true })},
		{"unknown key", live, "x", live},
		// Replay keys are inert live.
		{"live +", live, "+", live},
		{"live [", live, "[", live},
		{"live G", live, "G", live},
		{"live enter", with(live, func(s *State) { s.Screen = ScreenEvents }), "enter", with(live, func(s *State) { s.Screen = ScreenEvents })},
		{"speed up", replay, "+", with(replay, func(s *State) { s.Speed = 2 })},
		{"speed down", replay, "-", with(replay, func(s *State) { s.Speed = 0.5 })},
		{"speed top clamps", with(replay, func(s *State) { s.Speed = 64 }), "+", with(replay, func(s *State) { s.Speed = 64 })},
		{"speed bottom clamps", with(replay, func(s *State) { s.Speed = 0.25 }), "-", with(replay, func(s *State) { s.Speed = 0.25 })},
		{"odd speed up", with(replay, func(s *State) { s.Speed = 3 }), "+", with(replay, func(s *State) { s.Speed = 4 })},
		{"odd speed down", with(replay, func(s *State) { s.Speed = 3 }), "-", with(replay, func(s *State) { s.Speed = 2 })},
		{"seek back", replay, "[", with(replay, func(s *State) { s.SeekTo = 85 })},
		{"seek forward", replay, "]", with(replay, func(s *State) { s.SeekTo = 115 })},
		{"start", replay, "g", with(replay, func(s *State) { s.SeekTo = 0 })},
		{"end", replay, "G", with(replay, func(s *State) { s.SeekTo = 301 })},
		{"enter elsewhere does nothing", replay, "enter", replay},
		{"stale seek request cleared", with(replay, func(s *State) { s.SeekTo = 7 }), "x", replay},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Navigate(tc.in, tc.key, b)
			if got != tc.want {
				t.Errorf("Navigate(%+v, %q) = %+v, want %+v", tc.in, tc.key, got, tc.want)
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
	}{
		{"c turns the cursor on at the latest step", live, "c", b, with(live, func(s *State) { s.Cursor = 1000 })},
		{"c turns it off", cur, "c", b, live},
		{"esc turns it off", cur, "esc", b, live},
		{"cursor left by one column", cur, "left", b, with(live, func(s *State) { s.Cursor = 490 })},
		{"cursor right ×10", cur, "shift+right", b, with(live, func(s *State) { s.Cursor = 600 })},
		{"cursor clamps at the end", cur, "shift+right", Bounds{Step: 520, CellSteps: 10}, with(live, func(s *State) { s.Cursor = 520 })},
		{"cursor clamps at step 1", with(live, func(s *State) { s.Cursor = 3 }), "left", b, with(live, func(s *State) { s.Cursor = 1 })},
		{"z halves, following the end", live, "z", b, with(live, func(s *State) { s.ZoomSpan = 500 })},
		{"z around the cursor", cur, "z", b, with(cur, func(s *State) { s.ZoomSpan = 500; s.ZoomEnd = 750 })},
		{"Z doubles", with(live, func(s *State) { s.ZoomSpan = 200 }), "Z", b, with(live, func(s *State) { s.ZoomSpan = 400 })},
		{"Z back to all", with(live, func(s *State) { s.ZoomSpan = 500 }), "Z", b, live},
		{"0 shows all", with(live, func(s *State) { s.ZoomSpan = 50; s.ZoomEnd = 70 }), "0", b, live},
		{"n: last 100 steps of 1000", live, "n", b, with(live, func(s *State) { s.ZoomSpan = 100 })},
		{"n after the shortest: all", with(live, func(s *State) { s.ZoomSpan = 100 }), "n", b, live},
		{"v hides the selected variant", with(live, func(s *State) { s.Variant = 2 }), "v", b, with(live, func(s *State) { s.Variant = 2; s.Hidden = 4 })},
		{"v again shows it", with(live, func(s *State) { s.Hidden = 1 }), "v", b, live},
		{"V shows all", with(live, func(s *State) { s.Hidden = 7 }), "V", b, live},
		{"f is the Events screen's: the root does nothing", events, "f", b, events},
		{"p skips unmeasured probes", with(live, func(s *State) { s.Probe = probes.GMu }), "p", b, with(live, func(s *State) { s.Probe = probes.DxVar })},
		{"p wraps in the list", with(live, func(s *State) { s.Probe = probes.DxVar }), "p", b, live},
		{"P from outside the list", with(live, func(s *State) { s.Probe = probes.GVar }), "P", b, with(live, func(s *State) { s.Probe = probes.GMu })},
		{"o is the Summary's: the root does nothing", summary, "o", b, summary},
		{"q on a live run asks", live, "q", run, with(live, func(s *State) { s.Confirm = true })},
		{"q twice quits", with(live, func(s *State) { s.Confirm = true }), "q", run, with(live, func(s *State) { s.Quit = true })},
		{"y quits", with(live, func(s *State) { s.Confirm = true }), "y", run, with(live, func(s *State) { s.Quit = true })},
		{"another key cancels and does nothing", with(live, func(s *State) { s.Confirm = true }), "3", run, live},
		{"q on an ended live run quits", live, "q", b, with(live, func(s *State) { s.Quit = true })},
		{"? then q does not quit", with(live, func(s *State) { s.Help = true }), "q", run, live},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Navigate(tc.in, tc.key, tc.b); got != tc.want {
				t.Errorf("Navigate(%+v, %q) = %+v, want %+v", tc.in, tc.key, got, tc.want)
			}
		})
	}
}

func TestNavigateSeekBackClampsAtZero(t *testing.T) {
	s := Navigate(NewState(true, 1), "[", Bounds{Step: 5, SeekStride: 20})
	if s.SeekTo != 0 {
		t.Fatalf("SeekTo = %d, want 0", s.SeekTo)
	}
}

func TestNavigateNoVariants(t *testing.T) {
	s := Navigate(NewState(false, 1), "right", Bounds{})
	if s.Variant != 0 {
		t.Fatalf("Variant = %d with no variants", s.Variant)
	}
}
