package tui

import "github.com/normtop/normtop/probes"

// Click returns the state after a left click at (x, y): a tab switches
// screen, the chart puts the cursor on the step under the mouse, a variant
// or layer row selects it (a summary heading is the Summary's: sortBy). A
// click does nothing else while help or a quit question is shown but close
// them, like a key.
func Click(s State, zs []zone, x, y int) State {
	s.SeekTo = -1
	if s.Help || s.Confirm {
		return dismiss(s)
	}
	z := hit(zs, x, y)
	if z == nil {
		return s
	}
	switch z.kind {
	case zoneTab:
		s.Screen = Screen(z.val)
	case zoneChart:
		s.Cursor = z.stepAt(x)
	case zoneVariant:
		s.Variant = z.val
	case zoneLayer:
		s.Layer = z.val
	case zoneProbe:
		s.Probe = probes.Probe(z.val)
	}
	return s
}

// dismiss closes the full help or the quit question, as any key does.
func dismiss(s State) State {
	s.Help, s.Confirm = false, false
	return s
}

// Wheel returns the state after a wheel turn at (x, y): over a chart it
// zooms in (up) or out around the step under the mouse, as z and Z do
// around the cursor; elsewhere it moves the layer, as ↑/↓ do (a screen
// with a list of its own, and the config panel, take the wheel first:
// Model.onWheel). It scrolls the help, or closes the quit question
// instead, like a key.
func Wheel(s State, zs []zone, x, y int, up bool, b Bounds) State {
	s.SeekTo = -1
	d := 1
	if up {
		d = -1
	}
	if s.Help { // the wheel scrolls the help, as ↑/↓ do
		helpScroll(d)(&s, struct{}{}, "")
		return s
	}
	if s.Confirm {
		return dismiss(s)
	}
	if z := hit(zs, x, y); z != nil && z.kind == zoneChart {
		at := s
		at.Cursor = z.stepAt(x)
		if up {
			s.ZoomSpan, s.ZoomEnd = zoomIn(at, b)
		} else {
			s.ZoomSpan, s.ZoomEnd = zoomOut(at, b)
		}
		return s
	}
	s.moveLayer(d, b)
	return s
}
