package tui

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"
)

// frameLayout is one frame's layout, computed once when the model is dirty
// and before anything of the frame is painted: the body the screen lays
// out at its size (its lines, the scale its charts chose, the zones it
// puts under the mouse), the tab bar's cells, and the facts the keys need
// (Bounds: rows, pages, steps). The header, the body, the help bar, the
// keys and the mouse all read this one result, so none of them can show or
// act on a different frame from the others: the header's "log" is the
// scale of the chart under it, a click hits what is drawn, and a key moves
// over the rows shown.
type frameLayout struct {
	w, h int
	body []string // the body's lines (at most bodyH)
	// logShown: the body's chart is on a log axis (useLog; the last chart
	// laid out where a screen has several). The header's flag and l read it.
	logShown bool
	zones    []zone // clickable regions, the tabs' first
	tabs     []tab
	bounds   Bounds
}

// tab is one cell of the tab bar: its text and the columns it spans.
type tab struct {
	text   string
	x0, x1 int
}

// footerH is the help bar's height, under the body.
const footerH = 1

// layout returns the frame's layout, computing it when the model is dirty
// (a key, the mouse, a resize or new data changed something): the tab bar,
// then the body (help, config panel or screen), then the bounds the keys
// read.
func (m *Model) layout() *frameLayout {
	if !m.dirty {
		return &m.lay
	}
	m.dirty, m.painted = false, false
	m.lay = frameLayout{w: m.w, h: m.h, zones: m.lay.zones[:0], tabs: m.lay.tabs[:0]}
	if m.w >= minW && m.h >= minH {
		m.layoutTabs()
		bodyH := m.h - headerH - footerH
		switch {
		case m.st.Help:
			m.lay.body = m.helpBody(bodyH)
		case m.config.state.open:
			m.config.SetSize(m.w, bodyH)
			m.lay.body = m.config.View()
		default:
			sc := m.screens[m.st.Screen]
			sc.SetSize(m.w, bodyH)
			m.lay.body = sc.View()
		}
	}
	m.lay.bounds = m.bounds()
	return &m.lay
}

// layoutTabs places the tab bar's cells and their mouse zones: on a narrow
// screen the tabs not shown are abbreviated.
func (m *Model) layoutTabs() {
	full := 0
	for i := range numScreens {
		full += len(Screen(i).Title()) + 4
	}
	x := 0
	for i := range numScreens {
		title := Screen(i).Title()
		if full > m.w && Screen(i) != m.st.Screen {
			title = string([]rune(title)[:min(4, len(title))])
		}
		t := fmt.Sprintf(" %d %s ", i+1, title)
		tw := ansi.StringWidth(t)
		m.lay.tabs = append(m.lay.tabs, tab{text: t, x0: x, x1: x + tw})
		m.lay.zones = append(m.lay.zones, zone{kind: zoneTab, x0: x, x1: x + tw, y0: 2, y1: 3, val: int(i)})
		x += tw
	}
}

// bounds are the facts the keys and the wheel need: the run's, then the
// shown screen's own (bounds on the screen). Part of the layout: the
// scale and the rows are those of the frame laid out.
func (m *Model) bounds() Bounds {
	stride := m.data.total / 20
	if stride == 0 {
		stride = max(m.data.step/20, 10)
	}
	b := Bounds{
		Variants:   len(m.data.variants),
		Layers:     len(m.data.meta.Layers),
		Step:       m.data.step,
		LastStep:   max(m.data.total, m.data.step),
		SeekStride: stride,
		CellSteps:  m.cellSteps(m.w),
		Running:    m.live != nil && !m.live.ended,
		LogShown:   m.lay.logShown,
		Page:       max(m.h-headerH-8, 1),
	}
	m.screens[m.st.Screen].bounds(&b)
	return b
}
