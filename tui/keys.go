package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Navigate is what is left of the root's key handling as one function:
// which of its tables holds key k (a tea.KeyPressMsg.String() value, e.g.
// "left", "tab", "G", "space"), pure over what is run-wide. The full help
// (?) and the quit question hold every key while shown (helpKeys,
// confirmKeys); otherwise the root's key map (rootKeys) acts. It returns
// the state after k and the Cmd k asks for (tea.Quit). The shown screen's
// own keys, the text filter's and the config panel's reach their tables
// first (Model.onKey); this is what they leave.
func Navigate(s State, k string, b Bounds) (State, tea.Cmd) {
	s.SeekTo = -1
	kn := keyName(k)
	switch {
	case s.Help:
		helpKeys.handle(&s, struct{}{}, kn, s.Replay)
		return s, nil
	case s.Confirm:
		s.Confirm = false
		cmd, _ := confirmKeys.handle(&s, b, kn, s.Replay)
		return s, cmd
	}
	cmd, _ := rootKeys.handle(&s, b, kn, s.Replay)
	return s, cmd
}

// rootKeys is the root's key map over what is run-wide, given the facts of
// the frame's layout (Bounds): the view's keys, then the run's. It drives
// both the root's dispatch and the help (the full help lists the view's
// keys, the screens' own, then the run's), so the two cannot drift.
var rootKeys = append(append(keyTable[State, Bounds]{}, rootViewKeys...), rootRunKeys...)

// rootViewKeys choose what is shown: the screen, the variant (or the
// chart cursor's step), the layer, the probe, and what the charts show.
var rootViewKeys = keyTable[State, Bounds]{
	{key: keymap.screens, do: func(s *State, _ Bounds, k keyName) tea.Cmd {
		for i, sk := range keymap.screen {
			if key.Matches(k, sk) {
				s.Screen = Screen(i)
			}
		}
		return nil
	}},
	{key: keymap.tab, do: func(s *State, _ Bounds, k keyName) tea.Cmd {
		d := Screen(1)
		if key.Matches(k, keymap.prevScreen) {
			d = numScreens - 1
		}
		s.Screen = (s.Screen + d) % numScreens
		return nil
	}},
	{key: keymap.variant, do: func(s *State, b Bounds, k keyName) tea.Cmd {
		d := 1
		if key.Matches(k, keymap.left) {
			d = -1
		}
		if s.Cursor >= 0 {
			if key.Matches(k, keymap.bigStep) {
				d *= 10
			}
			s.Cursor = clamp(s.Cursor+d*max(b.CellSteps, 1), 1, max(b.Step, 1))
		} else {
			s.Variant = wrap(s.Variant+d, b.Variants)
		}
		return nil
	}},
	{key: keymap.layer, do: func(s *State, b Bounds, k keyName) tea.Cmd {
		s.moveLayer(upDown(k), b)
		return nil
	}},
	{key: keymap.probe, do: func(s *State, b Bounds, k keyName) tea.Cmd {
		s.Probe = nextProbe(s.Probe, key.Matches(k, keymap.probeNext), b.Probes)
		return nil
	}},
	{key: keymap.page, do: func(s *State, b Bounds, k keyName) tea.Cmd {
		s.moveLayer(upDown(k)*max(b.Page, 1), b)
		return nil
	}},
	{key: keymap.cursor, do: func(s *State, b Bounds, _ keyName) tea.Cmd {
		if s.Cursor >= 0 {
			s.Cursor = -1
			return nil
		}
		s.Cursor = max(b.Step, 1)
		if s.ZoomSpan > 0 && s.ZoomEnd > 0 {
			s.Cursor = min(s.ZoomEnd, max(b.Step, 1))
		}
		return nil
	}},
	{key: keymap.zoom, do: func(s *State, b Bounds, k keyName) tea.Cmd {
		switch {
		case key.Matches(k, keymap.zoomIn):
			s.ZoomSpan, s.ZoomEnd = zoomIn(*s, b)
		case key.Matches(k, keymap.zoomOut):
			s.ZoomSpan, s.ZoomEnd = zoomOut(*s, b)
		default:
			s.ZoomSpan, s.ZoomEnd = 0, 0
		}
		return nil
	}},
	{key: keymap.last, do: func(s *State, b Bounds, _ keyName) tea.Cmd {
		s.ZoomSpan, s.ZoomEnd = zoomLast(*s, b)
		return nil
	}},
	{key: keymap.toggle, do: func(s *State, b Bounds, k keyName) tea.Cmd {
		switch {
		case key.Matches(k, keymap.showAll):
			s.Hidden = 0
		case b.Variants > 0 && s.Variant < 64:
			s.Hidden ^= 1 << uint(s.Variant)
		}
		return nil
	}},
	{key: keymap.log, do: func(s *State, b Bounds, _ keyName) tea.Cmd {
		// Toggles what the chart shows (the automatic scale may already
		// be logarithmic); the choice then holds on every chart.
		s.Log = logOn
		if b.LogShown {
			s.Log = logOff
		}
		return nil
	}},
	{key: keymap.smooth, do: func(s *State, _ Bounds, _ keyName) tea.Cmd {
		s.Smooth = wrap(s.Smooth+1, len(smoothWeights))
		return nil
	}},
}

// moveLayer selects the layer d rows on (↑/↓, PgUp/PgDn, the wheel),
// within the layers.
func (s *State) moveLayer(d int, b Bounds) { s.Layer = clamp(s.Layer+d, 0, b.Layers-1) }

// rootRunKeys act on the run and the dashboard: the ends of the layer
// list (in replay, of the run), the config panel (its own table's: listed
// here), pause, help, quit, the chart cursor's esc, and the replay's
// speed and seeks.
var rootRunKeys = keyTable[State, Bounds]{
	{key: keymap.listEnds, do: func(s *State, b Bounds, k keyName) tea.Cmd {
		end := key.Matches(k, keymap.end)
		switch {
		case s.Replay && end:
			seekEnd(s, b)
		case s.Replay:
			s.SeekTo = 0
		case end:
			s.Layer = max(b.Layers-1, 0)
		default:
			s.Layer = 0
		}
		return nil
	}},
	{key: keymap.info}, // configPanel's: configClosedKeys
	{key: keymap.pause, do: func(s *State, _ Bounds, _ keyName) tea.Cmd {
		s.Paused = !s.Paused
		return nil
	}},
	{key: keymap.help, do: func(s *State, _ Bounds, _ keyName) tea.Cmd {
		s.Help = true
		return nil
	}},
	{key: keymap.quit, do: func(s *State, b Bounds, _ keyName) tea.Cmd {
		if b.Running && !s.Replay {
			s.Confirm = true // q or y again quits, any other key cancels
			return nil
		}
		return tea.Quit
	}},
	{key: keymap.esc, do: func(s *State, _ Bounds, _ keyName) tea.Cmd {
		s.Cursor = -1
		return nil
	}},
	{key: keymap.speed, replay: true, do: func(s *State, _ Bounds, k keyName) tea.Cmd {
		dir := 1
		if key.Matches(k, keymap.slower) {
			dir = -1
		}
		s.Speed = stepSpeed(s.Speed, dir)
		return nil
	}},
	{key: keymap.seek, replay: true, do: func(s *State, b Bounds, k keyName) tea.Cmd {
		stride := max(b.SeekStride, 1)
		if key.Matches(k, keymap.seekBack) {
			s.SeekTo = max(b.Step-stride, 0)
		} else {
			s.SeekTo = min(b.Step+stride, max(b.LastStep, b.Step+stride))
		}
		return nil
	}},
	{key: keymap.ends, replay: true, do: func(s *State, b Bounds, k keyName) tea.Cmd {
		if key.Matches(k, keymap.finish) {
			seekEnd(s, b)
		} else {
			s.SeekTo = 0
		}
		return nil
	}},
}

// seekEnd asks for the run's end: a seek reads the frames before its
// target, so one past the last step reads every variant's last frame (else
// the header stops at 4499/4500).
func seekEnd(s *State, b Bounds) { s.SeekTo = max(b.LastStep, b.Step) + 1 }

// confirmKeys answer the quit question (q on a live run): q, y or ctrl+c
// quits; any other key only cancels it (Navigate).
var confirmKeys = keyTable[State, Bounds]{
	{key: keymap.yes, do: func(*State, Bounds, keyName) tea.Cmd { return tea.Quit }},
}

// helpKeys are the keys while the full help is shown: the arrows, j/k,
// PgUp/PgDn and Home/End scroll it (at 80×24 it is longer than the
// screen); esc, ?, h, F1, q and ctrl+c close it and do nothing else (q
// does not quit); any other key does nothing, so a stray key does not
// close what is being read. Its first line names them.
var helpKeys = keyTable[State, struct{}]{
	{key: unlisted("up", "k"), do: helpScroll(-1)},
	{key: unlisted("down", "j", "enter", "space"), do: helpScroll(1)},
	{key: unlisted("pgup"), do: helpScroll(-helpPage)},
	{key: unlisted("pgdown"), do: helpScroll(helpPage)},
	{key: unlisted("home", "g"), do: helpScroll(-maxHelpTop)},
	{key: unlisted("end", "G"), do: helpScroll(maxHelpTop)},
	{key: unlisted("esc", "?", "h", "f1", "q", "ctrl+c"), do: func(s *State, _ struct{}, _ keyName) tea.Cmd {
		s.Help, s.HelpTop = false, 0
		return nil
	}},
}

// helpScroll moves the full help by d lines, within [0, maxHelpTop].
func helpScroll(d int) func(*State, struct{}, keyName) tea.Cmd {
	return func(s *State, _ struct{}, _ keyName) tea.Cmd {
		s.HelpTop = clamp(s.HelpTop+d, 0, maxHelpTop)
		return nil
	}
}

// helpPage is the lines PgUp/PgDn scroll the full help by; maxHelpTop
// bounds HelpTop (the view clamps it to the help's length).
const (
	helpPage   = 10
	maxHelpTop = 1000
)

// upDown is -1 for a key that moves up a list (↑, k, PgUp), else 1.
func upDown(k keyName) int {
	if key.Matches(k, keymap.up, keymap.pageUp) {
		return -1
	}
	return 1
}
