package tui

import "github.com/normtop/normtop/probes"

// zoneKind is what a clickable region of the screen selects.
type zoneKind uint8

const (
	zoneTab     zoneKind = iota // val: a Screen
	zoneChart                   // the plot area: x maps to steps lo..hi
	zoneVariant                 // val: a variant index
	zoneLayer                   // val: a layer index
	zoneSort                    // val: a summary column
	zoneProbe                   // val: a probes.Probe
)

// zone is a clickable rectangle of the last drawn screen, cells [x0, x1) ×
// [y0, y1). Screens record their zones while they draw, so the mouse hits
// what is shown.
type zone struct {
	kind           zoneKind
	x0, x1, y0, y1 int
	val            int
	lo, hi         int // zoneChart: the steps of columns x0 and x1-1
}

func (z *zone) has(x, y int) bool { return x >= z.x0 && x < z.x1 && y >= z.y0 && y < z.y1 }

// stepAt is the step under column x of a chart zone.
func (z *zone) stepAt(x int) int {
	w := max(z.x1-z.x0, 1)
	return z.lo + int(int64(x-z.x0)*int64(z.hi-z.lo+1)/int64(w))
}

func hit(zs []zone, x, y int) *zone {
	for i := len(zs) - 1; i >= 0; i-- {
		if zs[i].has(x, y) {
			return &zs[i]
		}
	}
	return nil
}

// Click returns the state after a left click at (x, y): a tab switches
// screen, the chart puts the cursor on the step under the mouse, a variant
// or layer row selects it, a summary heading sorts by its column (again:
// reverses). A click does nothing else while help or a quit question is
// shown but close them, like a key.
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
	case zoneSort:
		if s.SortCol == z.val {
			s.SortRev = !s.SortRev
		} else {
			s.SortCol, s.SortRev = z.val, false
		}
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
// around the cursor; elsewhere it scrolls the list shown, as ↑/↓ do. It
// closes help or the quit question instead, like a key.
func Wheel(s State, zs []zone, x, y int, up bool, b Bounds) State {
	s.SeekTo, s.SeekVariant = -1, -1
	if s.Help || s.Confirm {
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
	if up {
		return scroll(s, -1, b)
	}
	return scroll(s, 1, b)
}
