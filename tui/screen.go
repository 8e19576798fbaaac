package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// screen is one page of the dashboard, a component in soft-serve's sense:
// it draws its body at the size the root gives it (View: its layout, read
// by the root before anything is painted), lists its keys for the help bar
// and what it shows for the full help, and takes the messages meant for it
// (Update): its own keys, its data. A screen with keys of its own owns their
// state and a keyTable (see keyAction) that drives both its dispatch and its
// help bar; the root keeps only what is run-wide (State).
type screen interface {
	SetSize(w, h int)
	// View is the body: at most h lines of at most w cells.
	View() []string
	// ShortHelp is the screen's keys in the help bar, most used first.
	ShortHelp(replay bool) []key.Binding
	// Guide is what the full help (?) says the screen shows.
	Guide() string
	// bounds adds to b the run-wide keys' facts that only the screen knows
	// (the probes it can select); the root fills in the others.
	bounds(b *Bounds)
	// Update takes a message meant for the screen (a key of its own, its
	// data) and reports whether it was one; the Cmd asks the root for what
	// the screen cannot do itself (a seek).
	Update(msg tea.Msg) (tea.Cmd, bool)
}

// page is what every screen is built on: the shared view context and the
// body's size.
type page struct {
	*common
	w, h int
}

func (p *page) SetSize(w, h int) { p.w, p.h = w, h }

// bounds: a screen without keys of its own adds nothing.
func (p *page) bounds(*Bounds) {}

// Update: a screen that takes no message of its own takes none.
func (p *page) Update(tea.Msg) (tea.Cmd, bool) { return nil, false }

// listPage is how many rows PgUp/PgDn move a list of a body h lines high.
func listPage(h int) int { return max(h-7, 1) }

// keyAction is one key of a component's key map (a screen's, the root's,
// the text filter's, the config panel's): its binding (the keys and the
// help entry) and its handler, a pure function over the component's state
// S and the facts F its keys need (rows, pages, steps: the frame's
// layout). A nil handler is another table's key the component shows in
// its help at that place (a screen shows the root's; the root the config
// panel's i). A keyTable drives both the component's dispatch and its
// help, so a key shown is a key handled: a new key is one entry in one
// table.
type keyAction[S, F any] struct {
	key    key.Binding
	replay bool // only in replay (shown and handled)
	// when, if set, is the facts under which the entry holds the key;
	// otherwise the key goes on to the next table (the filter's esc
	// clears it only with the chart cursor off: the root's esc turns the
	// cursor off first).
	when func(f F) bool
	do   func(s *S, f F, k keyName) tea.Cmd
}

// keyTable is a component's key map, in help order.
type keyTable[S, F any] []keyAction[S, F]

// handle runs the first action of the table whose binding matches k; ok
// reports whether one did.
func (t keyTable[S, F]) handle(s *S, f F, k keyName, replay bool) (cmd tea.Cmd, ok bool) {
	for _, a := range t {
		if a.do != nil && (replay || !a.replay) && (a.when == nil || a.when(f)) && key.Matches(k, a.key) {
			return a.do(s, f, k), true
		}
	}
	return nil, false
}

// help is the table's help-bar entries.
func (t keyTable[S, F]) help(replay bool) []key.Binding {
	var out []key.Binding
	for _, a := range t {
		if (replay || !a.replay) && a.key.Help().Key != "" {
			out = append(out, a.key)
		}
	}
	return out
}

// own is the table's help entries that are the screen's own, of replay
// or not: those with a handler that are not a root key the screen also
// takes (↑/↓, PgUp/PgDn on its list). The full help lists them.
func (t keyTable[S, F]) own(replay bool) []key.Binding {
	var out []key.Binding
	for _, a := range t {
		if h := a.key.Help(); a.do != nil && a.replay == replay && h.Key != "" && !isRoot(h) {
			out = append(out, a.key)
		}
	}
	return out
}

// keyMsg is a key message's name as the tables match it.
func keyMsg(msg tea.Msg) (keyName, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	return keyName(k.String()), ok
}
