package tui

import "charm.land/bubbles/v2/key"

// keyMap is the bindings of the root's keys and of those several
// components share (the screens hold their own besides, in their tables:
// overviewKeys, eventsKeys, summaryKeys, gridKeys). The key tables
// (rootKeys, the screens', filterKeys, configKeys) hold these bindings and
// drive both dispatch (key.Matches) and the help, so a key shown is a key
// handled. A binding per action; the help's entries that name two actions
// ("←/→", "p/P") join their bindings (either), and a table entry holds
// the joined one.
type keyMap struct {
	screen                            [numScreens]key.Binding // 1-8: that screen
	nextScreen, prevScreen            key.Binding
	left, right, bigStep              key.Binding // variant, or the cursor (shift: ×10 cells)
	up, down, pageUp, pageDown        key.Binding // layer or event row, a page of them
	home, end                         key.Binding // the list's ends, or the replay's
	probeNext, probePrev              key.Binding
	log, smooth, diff, base, info     key.Binding
	pause, cursor, esc                key.Binding
	zoomIn, zoomOut, zoomAll, last    key.Binding
	hide, showAll                     key.Binding
	text                              key.Binding
	faster, slower, seekBack, seekFwd key.Binding // replay
	start, finish, jump               key.Binding // replay
	help, quit, yes                   key.Binding
	// The text filter being typed: enter keeps it, esc drops it.
	keep, drop, backspace, space key.Binding

	// The help's entries.
	screens, tab, variant, layer, probe, page, listEnds key.Binding
	zoom, toggle, speed, seek, ends                     key.Binding
}

// keymap is the dashboard's one key map.
var keymap = newKeyMap()

func bind(keys []string, k, d string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, d))
}

// unlisted is a binding that dispatch matches but no help entry shows alone.
func unlisted(ks ...string) key.Binding { return key.NewBinding(key.WithKeys(ks...)) }

// either is one help entry for several bindings: it holds all their keys.
func either(k, d string, bs ...key.Binding) key.Binding {
	var ks []string
	for _, b := range bs {
		ks = append(ks, b.Keys()...)
	}
	return bind(ks, k, d)
}

func newKeyMap() keyMap {
	var m keyMap
	for i := range m.screen {
		m.screen[i] = unlisted(string(rune('1' + i)))
	}
	m.nextScreen, m.prevScreen = unlisted("tab"), unlisted("shift+tab")
	m.left, m.right = unlisted("left", "shift+left"), unlisted("right", "shift+right")
	m.bigStep = unlisted("shift+left", "shift+right")
	m.up, m.down = unlisted("up", "k"), unlisted("down", "j")
	m.pageUp, m.pageDown = unlisted("pgup"), unlisted("pgdown")
	m.home, m.end = unlisted("home"), unlisted("end")
	m.probeNext, m.probePrev = unlisted("p"), unlisted("P")
	m.log = bind([]string{"l"}, "l", "log")
	m.smooth = bind([]string{"s"}, "s", "smoothing")
	m.diff = bind([]string{"d"}, "d", "Δ vs baseline")
	m.base = bind([]string{"b"}, "b", "baseline")
	m.info = bind([]string{"i"}, "i", "run config")
	m.text = bind([]string{"/"}, "/", "filter text")
	m.pause = bind([]string{"space", " "}, "space", "pause")
	m.cursor, m.esc = unlisted("c"), unlisted("esc")
	m.zoomIn, m.zoomOut, m.zoomAll = unlisted("z"), unlisted("Z"), unlisted("0")
	m.last = bind([]string{"n"}, "n", "last N steps")
	m.hide, m.showAll = unlisted("v"), unlisted("V")
	m.faster, m.slower = unlisted("+", "="), unlisted("-", "_")
	m.seekBack, m.seekFwd = unlisted("["), unlisted("]")
	m.start, m.finish = unlisted("g", "home"), unlisted("G", "end")
	m.jump = bind([]string{"enter"}, "enter", "jump to event")
	m.help = bind([]string{"?", "h", "f1"}, "?/h/F1", "help")
	m.quit = bind([]string{"q", "ctrl+c"}, "q", "quit")
	m.yes = unlisted("q", "y", "ctrl+c")
	m.keep, m.drop = unlisted("enter"), unlisted("esc", "ctrl+c")
	m.backspace, m.space = unlisted("backspace"), unlisted("space")

	m.screens = either("1-8", "screen", m.screen[:]...)
	m.tab = either("tab/⇧tab", "next/prev screen", m.nextScreen, m.prevScreen)
	m.variant = either("←/→", "variant/cursor", m.left, m.right)
	m.layer = either("↑/↓ j/k", "layer/event", m.up, m.down)
	m.probe = either("p/P", "probe", m.probeNext, m.probePrev)
	m.page = either("PgUp/PgDn", "page", m.pageUp, m.pageDown)
	m.listEnds = either("Home/End", "first/last", m.home, m.end)
	m.cursor = bind(m.cursor.Keys(), "c", "cursor")
	m.zoom = either("z/Z/0", "zoom in/out/all", m.zoomIn, m.zoomOut, m.zoomAll)
	m.toggle = either("v/V", "hide variant", m.hide, m.showAll)
	m.speed = either("+/-", "speed", m.faster, m.slower)
	m.seek = either("[/]", "seek", m.seekBack, m.seekFwd)
	m.ends = either("g/G", "start/end", m.start, m.finish)
	return m
}

// isRoot reports whether h is the help entry of one of the root's keys
// (rootKeys): a screen's table that shows it does not list it as its own.
func isRoot(h key.Help) bool {
	for _, a := range rootKeys {
		if a.key.Help() == h {
			return true
		}
	}
	return false
}

// probeChart is the help bar's keys of a screen charting the selected
// layer × probe (Layers, Compare, Gradients).
func (k *keyMap) probeChart() []key.Binding {
	return []key.Binding{k.cursor, k.zoom, k.toggle, k.variant, k.layer, k.probe}
}

// keyName is a key as tea.KeyPressMsg.String() names it ("left", "G",
// "space"): what key.Matches compares a binding's keys with.
type keyName string

func (k keyName) String() string { return string(k) }
