package tui

import (
	"testing"

	"github.com/normtop/normtop/probes"
)

func TestNavigate(t *testing.T) {
	b := Bounds{Variants: 3, Layers: 4, EventSteps: []int{10, 50, 90}, Step: 100, LastStep: 300, SeekStride: 15}
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
		{"tab wraps", with(live, func(s *State) { s.Screen = ScreenEvents }), "tab", live},
		{"shift+tab wraps", live, "shift+tab", with(live, func(s *State) { s.Screen = ScreenEvents })},
		{"right", live, "right", with(live, func(s *State) { s.Variant = 1 })},
		{"left wraps", live, "left", with(live, func(s *State) { s.Variant = 2 })},
		{"right wraps", with(live, func(s *State) { s.Variant = 2 }), "right", live},
		{"down", live, "down", with(live, func(s *State) { s.Layer = 1 })},
		{"up clamps", live, "up", live},
		{"down clamps", with(live, func(s *State) { s.Layer = 3 }), "down", with(live, func(s *State) { s.Layer = 3 })},
		{"down on events moves event", with(live, func(s *State) { s.Screen = ScreenEvents }), "down",
			with(live, func(s *State) { s.Screen = ScreenEvents; s.Event = 1 })},
		{"p cycles probe", live, "p", with(live, func(s *State) { s.Probe = probes.DistVar })},
		{"p wraps", with(live, func(s *State) { s.Probe = probes.NumProbes - 1 }), "p", with(live, func(s *State) { s.Probe = 0 })},
		{"P back", live, "P", with(live, func(s *State) { s.Probe = probes.NumProbes - 1 })},
		{"log", live, "l", with(live, func(s *State) { s.Log = true })},
		{"smooth", live, "s", with(live, func(s *State) { s.Smooth = true })},
		{"pause", live, "space", with(live, func(s *State) { s.Paused = true })},
		{"unpause", with(live, func(s *State) { s.Paused = true }), "space", live},
		{"help", live, "?", with(live, func(s *State) { s.Help = true })},
		{"any key closes help", with(live, func(s *State) { s.Help = true }), "3", live},
		{"q quits", live, "q", with(live, func(s *State) { s.Quit = true })},
		{"q quits from help", with(live, func(s *State) { s.Help = true }), "q", with(live, func(s *State) { s.Help = true; s.Quit = true })},
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
		{"end", replay, "G", with(replay, func(s *State) { s.SeekTo = 300 })},
		{"enter on events jumps", with(replay, func(s *State) { s.Screen = ScreenEvents; s.Event = 2 }), "enter",
			with(replay, func(s *State) { s.Screen = ScreenEvents; s.Event = 2; s.SeekTo = 90 })},
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
