package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// modeWords is the header's badge: the driver's state in words, then
// whether the dashboard is paused and where a seek is going.
func (m *Model) modeWords() string {
	var mode, seek string
	if r := m.replay; r != nil {
		switch r.State() {
		case replayFollowing, replayFollowBehind:
			mode = "following"
			switch {
			case r.srcCrashed:
				mode += " · ended (killed or crashed)"
			case r.Ended():
				mode += " (ended)"
			}
		case replayCatchingUp:
			mode = "catching up"
		case replaySeeking:
			seek = fmt.Sprintf(" · seeking → %d", r.target)
			fallthrough
		default:
			mode = fmt.Sprintf("replay ×%g", m.st.Speed)
		}
	} else {
		mode = "live"
		if m.live.Ended() {
			mode += " (ended)"
		}
	}
	if m.st.Paused {
		mode += " · paused"
	}
	return mode + seek
}

// feedDropped is the live feed's dropped-frame count (0 in replay).
func (m *Model) feedDropped() int {
	if m.live == nil {
		return 0
	}
	return m.live.dropped()
}

// writeHeader paints the header's three lines from the frame's layout:
// the run, the step and the facts, the tab bar and the flags (the scale
// the body's chart was laid out on).
func (m *Model) writeHeader(b *strings.Builder, lay *frameLayout) {
	s := m.styles
	meta := &m.data.meta
	mode := m.modeWords()
	run := meta.RunID
	if run == "" {
		run = "(unnamed run)"
	}
	left := s.Title.Render("normtop") + " " + s.Header.Render(fmt.Sprintf("%s · %s · %s", run, meta.ModelLabel(), meta.Data))
	right := s.ActiveTab.Render(" " + mode + " ")
	b.WriteString(joinLR(left, right, m.w))
	b.WriteByte('\n')

	stepStr := fmt.Sprintf("step %d", m.data.step)
	if m.data.total > 0 {
		stepStr += fmt.Sprintf("/%d", m.data.total)
	}
	if r := m.replay; r != nil && r.jumped.variant >= 0 && r.jumped.variant < len(m.data.variants) {
		// Jumped to an event: its step, whose the event is, and how far
		// the variants that run ahead have got.
		stepStr = fmt.Sprintf("step %d (%s's event) · newest %d", r.jumped.step, m.data.variants[r.jumped.variant].label, m.data.step)
		if m.data.total > 0 {
			stepStr += fmt.Sprintf("/%d", m.data.total)
		}
	}
	facts := fmt.Sprintf("%s · epoch %.2f · elapsed %s", stepStr, m.data.epoch, fmtDuration(m.data.elapsed))
	if m.replay != nil && m.replay.err != nil {
		facts += " · " + s.Bad.Render("read error: "+m.replay.err.Error())
	}
	if d := m.feedDropped(); d > 0 {
		// The live feed is lossy by design (the trainer never waits); say
		// how many plain frames were coalesced away. The run file has them.
		facts += fmt.Sprintf(" · %d frames coalesced", d)
	}
	path := m.opt.RunPath
	if path == "" {
		path = "(not recorded)"
	}
	// The facts come first; the path gets what is left, its end (the file
	// name) kept, and goes when too little is left to mean anything.
	room := m.w - ansi.StringWidth(facts) - 1
	if room < 12 {
		b.WriteString(fit(s.Header.Render(facts), m.w))
	} else {
		b.WriteString(joinLR(s.Header.Render(facts), s.Dim.Render(shortenPath(path, room)), m.w))
	}
	b.WriteByte('\n')

	var tabs strings.Builder
	for i, t := range lay.tabs {
		if Screen(i) == m.st.Screen {
			tabs.WriteString(s.ActiveTab.Render(t.text))
		} else {
			tabs.WriteString(s.Tab.Render(t.text))
		}
	}
	flags := ""
	if lay.logShown {
		flags += " log"
	}
	flags += " " + smoothNote(m.st.Smooth)
	// The flags give way to the tabs on a narrow screen.
	b.WriteString(fit(withHint(tabs.String(), s.Dim.Render(strings.TrimSpace(flags)), m.w), m.w))
	b.WriteByte('\n')
}

// headerH is the header's height: the screen body starts on this row.
const headerH = 3
