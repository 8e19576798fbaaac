package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// View returns the cached screen, redrawing it only when something shown
// changed (a key, a resize, or new frames at the coalescing tick).
func (m *Model) View() tea.View {
	if m.dirty || m.cache == "" {
		m.cache = m.render()
		m.dirty = false
	}
	v := tea.NewView(m.cache)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "normtop"
	return v
}

// render draws the whole screen: header, body, help bar, exactly w×h.
func (m *Model) render() string {
	if m.w == 0 || m.h == 0 {
		return "normtop: waiting for the terminal size…"
	}
	if m.w < minW || m.h < minH {
		return fmt.Sprintf("terminal too small (need %d×%d, have %d×%d)", minW, minH, m.w, m.h)
	}
	const footerH = 1
	bodyH := m.h - headerH - footerH
	m.zones = m.zones[:0]
	var b strings.Builder
	b.Grow(m.w * m.h * 4)
	m.writeHeader(&b)
	var body []string
	sc := m.screens[m.st.Screen]
	switch {
	case m.st.Help:
		body = m.helpBody(bodyH)
	case m.st.Info:
		m.config.SetSize(m.w, bodyH)
		body = m.config.View()
	default:
		sc.SetSize(m.w, bodyH)
		body = sc.View()
	}
	for i := range bodyH {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		b.WriteString(fit(line, m.w))
		b.WriteByte('\n')
	}
	if m.st.Confirm {
		b.WriteString(fit(m.styles.Bad.Render("stop the live run and quit? q or y: yes · any other key: no"), m.w))
	} else {
		b.WriteString(fit(m.helpBar(), m.w))
	}
	return b.String()
}
