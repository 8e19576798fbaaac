package tui

import "charm.land/bubbles/v2/key"

// Navigate returns the state after key k (a tea.KeyPressMsg.String() value,
// e.g. "left", "tab", "G", "space"), dispatched on keymap's bindings: the
// root's keys, over what is run-wide. A screen's own keys reach it first
// (Model.onKey; the screen's keyTable); this is what they leave.
func Navigate(s State, k string, b Bounds) State {
	s.SeekTo, s.SeekVariant = -1, -1
	kn := keyName(k)
	if s.Help {
		return helpKey(s, kn)
	}
	if s.Filtering {
		return filterKey(s, kn)
	}
	if s.Confirm {
		s.Confirm = false
		s.Quit = key.Matches(kn, keymap.yes)
		return s
	}
	if d, ok := listStep(kn, b); ok {
		return scroll(s, d, b)
	}
	next, ok := infoKeys(s, kn, b)
	if ok {
		return next
	}
	s = next
	for _, keys := range []func(State, keyName, Bounds) (State, bool){appKeys, moveKeys, chartKeys} {
		if next, ok := keys(s, kn, b); ok {
			return next
		}
	}
	return navigateEnds(s, kn, b)
}

// listStep is the rows ↑/↓ (one) and PgUp/PgDn (a page) move the list
// shown by: negative up.
func listStep(k keyName, b Bounds) (int, bool) {
	km := &keymap
	switch {
	case key.Matches(k, km.up):
		return -1, true
	case key.Matches(k, km.down):
		return 1, true
	case key.Matches(k, km.pageUp):
		return -max(b.Page, 1), true
	case key.Matches(k, km.pageDown):
		return max(b.Page, 1), true
	}
	return 0, false
}

// scroll moves the list shown by d rows (listStep's keys, the wheel): the
// config panel's lines while it is shown, else the selected layer (a
// screen with a list of its own takes these keys first).
func scroll(s State, d int, b Bounds) State {
	switch {
	case s.Info:
		s.InfoTop = max(s.InfoTop+d, 0)
	default:
		s.Layer = clamp(s.Layer+d, 0, b.Layers-1)
	}
	return s
}

// appKeys: quit, help, the config panel, the screens, pause.
func appKeys(s State, k keyName, b Bounds) (State, bool) {
	km := &keymap
	switch {
	case key.Matches(k, km.quit):
		if b.Running && !s.Replay {
			s.Confirm = true
		} else {
			s.Quit = true
		}
	case key.Matches(k, km.info):
		s.Info, s.InfoTop = true, 0
	case key.Matches(k, km.help):
		s.Help = !s.Help
	case key.Matches(k, km.text):
		if s.Screen == ScreenEvents || s.Screen == ScreenGrid {
			s.Filtering = true
		}
	case key.Matches(k, km.screens):
		for i, sk := range km.screen {
			if key.Matches(k, sk) {
				s.Screen = Screen(i)
			}
		}
	case key.Matches(k, km.nextScreen):
		s.Screen = (s.Screen + 1) % numScreens
	case key.Matches(k, km.prevScreen):
		s.Screen = (s.Screen + numScreens - 1) % numScreens
	case key.Matches(k, km.pause):
		s.Paused = !s.Paused
	default:
		return s, false
	}
	return s, true
}

// moveKeys move the selection: the variant (or the chart cursor), the
// probe (scroll moves the layer).
func moveKeys(s State, k keyName, b Bounds) (State, bool) {
	km := &keymap
	switch {
	case key.Matches(k, km.left, km.right):
		d := 1
		if key.Matches(k, km.left) {
			d = -1
		}
		if s.Cursor >= 0 {
			if key.Matches(k, km.bigStep) {
				d *= 10
			}
			s.Cursor = clamp(s.Cursor+d*max(b.CellSteps, 1), 1, max(b.Step, 1))
		} else {
			s.Variant = wrap(s.Variant+d, b.Variants)
		}
	case key.Matches(k, km.probeNext, km.probePrev):
		s.Probe = nextProbe(s.Probe, key.Matches(k, km.probeNext), b.Probes)
	default:
		return s, false
	}
	return s, true
}

// chartKeys change what the charts show: scale, smoothing, the cursor,
// the zoom, the hidden variants.
func chartKeys(s State, k keyName, b Bounds) (State, bool) {
	km := &keymap
	switch {
	case key.Matches(k, km.log):
		// Toggles what the chart shows (the automatic scale may already
		// be logarithmic); the choice then holds on every chart.
		s.Log = logOn
		if b.LogShown {
			s.Log = logOff
		}
	case key.Matches(k, km.smooth):
		s.Smooth = wrap(s.Smooth+1, len(smoothWeights))
	case key.Matches(k, km.cursor):
		if s.Cursor >= 0 {
			s.Cursor = -1
		} else {
			s.Cursor = max(b.Step, 1)
			if s.ZoomSpan > 0 && s.ZoomEnd > 0 {
				s.Cursor = min(s.ZoomEnd, max(b.Step, 1))
			}
		}
	case key.Matches(k, km.esc):
		if s.Cursor < 0 && (s.Screen == ScreenEvents || s.Screen == ScreenGrid) {
			s.Filter = ""
		}
		s.Cursor = -1
	case key.Matches(k, km.zoomIn):
		s.ZoomSpan, s.ZoomEnd = zoomIn(s, b)
	case key.Matches(k, km.zoomOut):
		s.ZoomSpan, s.ZoomEnd = zoomOut(s, b)
	case key.Matches(k, km.zoomAll):
		s.ZoomSpan, s.ZoomEnd = 0, 0
	case key.Matches(k, km.last):
		s.ZoomSpan, s.ZoomEnd = zoomLast(s, b)
	case key.Matches(k, km.hide):
		if b.Variants > 0 && s.Variant < 64 {
			s.Hidden ^= 1 << uint(s.Variant)
		}
	case key.Matches(k, km.showAll):
		s.Hidden = 0
	default:
		return s, false
	}
	return s, true
}

// navigateEnds handles the keys after the common ones: Home/End on a list,
// and the replay's speed, seeks and jump to an event.
func navigateEnds(s State, k keyName, b Bounds) State {
	km := &keymap
	if !s.Replay {
		if key.Matches(k, km.home, km.end) {
			s.Layer = 0
			if key.Matches(k, km.end) {
				s.Layer = max(b.Layers-1, 0)
			}
		}
		return s
	}
	stride := max(b.SeekStride, 1)
	switch {
	case key.Matches(k, km.faster):
		s.Speed = stepSpeed(s.Speed, +1)
	case key.Matches(k, km.slower):
		s.Speed = stepSpeed(s.Speed, -1)
	case key.Matches(k, km.seekBack):
		s.SeekTo = max(b.Step-stride, 0)
	case key.Matches(k, km.seekFwd):
		s.SeekTo = min(b.Step+stride, max(b.LastStep, b.Step+stride))
	case key.Matches(k, km.start):
		s.SeekTo = 0
	case key.Matches(k, km.finish):
		// A seek reads the frames before its target: one past the last
		// step reads every variant's last frame (else the header stops at
		// 4499/4500).
		s.SeekTo = max(b.LastStep, b.Step) + 1
	}
	return s
}

// helpKey is a key while the full help is shown: the arrows, j/k, PgUp/PgDn
// and Home/End scroll it (at 80×24 it is longer than the screen); esc, ?,
// h, F1, q and ctrl+c close it and do nothing else (q does not quit); any
// other key does nothing, so a stray key does not close what is being read.
func helpKey(s State, kn keyName) State {
	const page = 10
	switch kn {
	case "up", "k":
		s.HelpTop--
	case "down", "j", "enter", "space":
		s.HelpTop++
	case "pgup":
		s.HelpTop -= page
	case "pgdown":
		s.HelpTop += page
	case "home", "g":
		s.HelpTop = 0
	case "end", "G":
		s.HelpTop = maxHelpTop
	case "esc", "?", "h", "f1", "q", "ctrl+c":
		s.Help, s.HelpTop = false, 0
	}
	s.HelpTop = min(max(s.HelpTop, 0), maxHelpTop)
	return s
}

// maxHelpTop bounds HelpTop; the view clamps it to the help's length.
const maxHelpTop = 1000
