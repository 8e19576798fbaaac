package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
)

// shortHelp is the always-visible help bar of screen sc: the keys that act
// there, most used first (the bar truncates at the right), then the root's.
func (k *keyMap) shortHelp(sc screen, replay bool) []key.Binding {
	out := []key.Binding{k.screens}
	out = append(out, sc.ShortHelp(replay)...)
	out = append(out, k.pause)
	if replay {
		out = append(out, k.speed, k.seek, k.ends)
	}
	out = append(out, k.info, k.log, k.smooth, k.help, k.quit)
	return out
}

// fullHelp is shown by ?: every key, drawn from the tables that handle
// them (so a new key of any table is listed, and nothing unhandled is):
// the root's view keys, the screens' own and the text filter's, the
// root's run keys, then (in replay) the screens' own replay keys.
func fullHelp(replay bool) []key.Binding {
	out := rootViewKeys.help(replay)
	out = append(out, screensOwn(false)...)
	out = append(out, rootRunKeys.help(replay)...)
	if replay {
		out = append(out, screensOwn(true)...)
	}
	return out
}

// screensOwn is the keys of the screens' tables (and of the text filter,
// after the first screen that shows it) that are not the root's, each
// entry once: those of replay only, or the others.
func screensOwn(replay bool) []key.Binding {
	var out []key.Binding
	seen := map[key.Help]bool{}
	for _, keys := range [][]key.Binding{overviewKeys.own(replay), eventsKeys.own(replay), filterKeys.own(replay),
		summaryKeys.own(replay), gridKeys.own(replay)} {
		for _, k := range keys {
			if !seen[k.Help()] {
				seen[k.Help()] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// fullHelpLines lays every key of the full help out in as many columns as
// the width holds, filled down then across: no key is cut off at 80
// columns, and the list stays short enough to leave room for the guide.
func (m *Model) fullHelpLines() []string {
	keys := fullHelp(m.st.Replay)
	kw, dw := 0, 0
	for _, k := range keys {
		kw = max(kw, ansi.StringWidth(k.Help().Key))
		dw = max(dw, ansi.StringWidth(k.Help().Desc))
	}
	colW := kw + 1 + dw + 3
	ncols := max(m.w/colW, 1)
	nrows := (len(keys) + ncols - 1) / ncols
	st := m.styles.Help
	out := make([]string, nrows)
	for i, k := range keys {
		r, c := i%nrows, i/nrows
		cell := st.FullKey.Render(fmt.Sprintf("%-*s", kw, k.Help().Key)) + " " + st.FullDesc.Render(k.Help().Desc)
		if c < ncols-1 {
			cell += strings.Repeat(" ", colW-kw-1-ansi.StringWidth(k.Help().Desc))
		}
		out[r] += cell
	}
	return out
}

func maxWidth(block string) int {
	w := 0
	for _, l := range strings.Split(block, "\n") {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}

// helpBar is the one-line help of the mode and screen; "? help" and
// "q quit" always show at its end, the other keys give way from the right.
func (m *Model) helpBar() string {
	if m.config.state.open {
		return m.help.ShortHelpView(m.config.ShortHelp())
	}
	keys := keymap.shortHelp(m.screens[m.st.Screen], m.st.Replay)
	tail := m.help.ShortHelpView(keys[len(keys)-2:])
	room := max(m.w-ansi.StringWidth(tail)-3, 10)
	h := m.help
	h.SetWidth(room)
	head := h.ShortHelpView(keys[:len(keys)-2])
	if ansi.StringWidth(head) > room {
		head = ansi.Truncate(head, room-1, "…")
	}
	return head + m.styles.Help.ShortSeparator.Render(" • ") + tail
}

// helpBody is the full help, keys then the screen's guide, scrolled to
// HelpTop and cut to h lines; the first line says how to scroll and close
// it, and whether more lies above or below.
func (m *Model) helpBody(h int) []string {
	lines := m.fullHelpLines()
	lines = append(lines, "", m.styles.Heading.Render(m.st.Screen.Title()))
	lines = append(lines, wrapWords(m.screens[m.st.Screen].Guide(), m.w)...)
	rows := max(h-1, 1)
	top := min(m.st.HelpTop, max(len(lines)-rows, 0))
	end := min(top+rows, len(lines))
	head := "Keys · esc or ? closes"
	if len(lines) > rows {
		head += fmt.Sprintf(" · ↑/↓ PgUp/PgDn scroll (lines %d–%d of %d)", top+1, end, len(lines))
	}
	return append([]string{m.styles.Heading.Render(head)}, lines[top:end]...)
}
