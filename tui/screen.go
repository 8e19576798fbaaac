package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// screen is one page of the dashboard, a component in soft-serve's sense:
// it draws its body at the size the root gives it and lists its keys for
// the help bar, and what it shows for the full help. A screen with keys of
// its own has a key map and a pure update function over State (in
// screenKeys), which Navigate tries before the root's keys, and one whose
// list is not the layers its scroll (in screenScroll: ↑/↓, PgUp/PgDn, the
// wheel); its state is a part of State that it defines and alone changes.
type screen interface {
	SetSize(w, h int)
	// View is the body: at most h lines of at most w cells.
	View() []string
	// ShortHelp is the screen's keys in the help bar, most used first.
	ShortHelp(replay bool) []key.Binding
	// Guide is what the full help (?) says the screen shows.
	Guide() string
	// bounds adds to b the facts the screen's keys need that only the
	// screen knows (its rows, its pages, the probes it can select); the
	// root fills in the run-wide ones.
	bounds(b *Bounds)
	// Update takes a message meant for the screen (its data, not a key)
	// and reports whether it was one.
	Update(msg tea.Msg) bool
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
func (p *page) Update(tea.Msg) bool { return false }
