package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// View returns the cached screen: the frame's layout (computed when
// something shown changed: a key, a resize, or new frames at the
// coalescing tick), painted once.
func (m *Model) View() tea.View {
	lay := m.layout()
	if !m.painted {
		m.cache = m.paint(lay)
		m.painted = true
	}
	v := tea.NewView(m.cache)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "normtop"
	return v
}

// paint draws the laid-out frame: header, body, help bar, exactly w×h.
func (m *Model) paint(lay *frameLayout) string {
	if lay.w == 0 || lay.h == 0 {
		return "normtop: waiting for the terminal size…"
	}
	if lay.w < minW || lay.h < minH {
		return fmt.Sprintf("terminal too small (need %d×%d, have %d×%d)", minW, minH, lay.w, lay.h)
	}
	bodyH := lay.h - headerH - footerH
	var b strings.Builder
	b.Grow(lay.w * lay.h * 4)
	m.writeHeader(&b, lay)
	for i := range bodyH {
		line := ""
		if i < len(lay.body) {
			line = lay.body[i]
		}
		b.WriteString(fit(line, lay.w))
		b.WriteByte('\n')
	}
	if m.st.Confirm {
		b.WriteString(fit(m.styles.Bad.Render("stop the live run and quit? q or y: yes · any other key: no"), lay.w))
	} else {
		b.WriteString(fit(m.helpBar(), lay.w))
	}
	return b.String()
}
