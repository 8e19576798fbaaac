package tui

import (
	"testing"

	"charm.land/bubbles/v2/key"
)

// rootActs: the root's keys (Navigate), or the text filter's or the
// config panel's tables, change something from state s.
func rootActs(s State, k string, b Bounds) bool {
	next, cmd := Navigate(s, k, b)
	return next != s || cmd != nil || componentKeyActs(keyName(k), s.Replay)
}

// componentKeyActs: the text filter's or the config panel's table takes k
// and changes their state (from a filter with a pattern, a panel closed or
// shown at its second line).
func componentKeyActs(k keyName, replay bool) bool {
	f := textFilter{pattern: "ln"}
	if _, ok := filterKeys.handle(&f, false, k, replay); ok && f != (textFilter{pattern: "ln"}) {
		return true
	}
	var closed configState
	if _, ok := configClosedKeys.handle(&closed, 5, k, replay); ok && closed != (configState{}) {
		return true
	}
	open := configState{open: true, top: 1}
	_, ok := configKeys.handle(&open, 5, k, replay)
	return ok && open != configState{open: true, top: 1}
}

// TestEveryHelpKeyActs: each key the full help lists changes the state on
// at least one screen (live or replay, the cursor on or off), so the help
// names no key that dispatch ignores.
func TestEveryHelpKeyActs(t *testing.T) {
	b := Bounds{Variants: 3, Layers: 4, Step: 5000, LastStep: 9000, SeekStride: 15, CellSteps: 2, Page: 2}
	var starts []State
	for _, replay := range []bool{false, true} {
		for sc := range numScreens {
			for _, cursor := range []int{-1, 50} {
				s := NewState(replay, 1)
				s.Screen, s.Cursor, s.Layer = sc, cursor, 1
				starts = append(starts, s)
				s.ZoomSpan, s.Hidden = 20, 1 // zoomed in, a variant hidden
				starts = append(starts, s)
			}
		}
	}
	for _, bd := range fullHelp(true) {
		for _, k := range bd.Keys() {
			acted := false
			for _, s := range starts {
				if rootActs(s, k, b) || screenKeyActs(s.Screen, keyName(k), s.Replay) {
					acted = true
					break
				}
			}
			if !acted {
				t.Errorf("help entry %q: key %q changes nothing on any screen", bd.Help().Key, k)
			}
		}
	}
}

// TestTablesAndHelpAgree: every entry a key table lists (its help text)
// is in the full help (the config panel's, in its help bar), and every
// key of the full help is held by an entry with a handler in some table:
// the help has no key the tables lack, and a table has no listed key the
// help leaves out.
func TestTablesAndHelpAgree(t *testing.T) {
	inHelp := map[key.Help]bool{}
	for _, b := range fullHelp(true) {
		inHelp[b.Help()] = true
	}
	listed := func(name string, bs []key.Binding, in map[key.Help]bool) {
		for _, b := range bs {
			if !in[b.Help()] {
				t.Errorf("%s lists %q (%v), which the help does not", name, b.Help().Key, b.Keys())
			}
		}
	}
	listed("rootKeys", rootKeys.help(true), inHelp)
	listed("overviewKeys", overviewKeys.help(true), inHelp)
	listed("eventsKeys", eventsKeys.help(true), inHelp)
	listed("summaryKeys", summaryKeys.help(true), inHelp)
	listed("gridKeys", gridKeys.help(true), inHelp)
	listed("filterKeys", filterKeys.help(true), inHelp)
	listed("configClosedKeys", configClosedKeys.help(true), inHelp)
	bar := map[key.Help]bool{}
	for _, b := range (&configPanel{}).ShortHelp() {
		bar[b.Help()] = true
	}
	listed("configKeys", configKeys.help(true), bar)

	// Each key of the help: some table's entry with a handler holds it.
	var held []key.Binding
	add := func(bs []key.Binding, dos []bool) {
		for i, b := range bs {
			if dos[i] {
				held = append(held, b)
			}
		}
	}
	add(handled(rootKeys))
	add(handled(overviewKeys))
	add(handled(eventsKeys))
	add(handled(summaryKeys))
	add(handled(gridKeys))
	add(handled(filterKeys))
	add(handled(configClosedKeys))
	for _, b := range fullHelp(true) {
		for _, k := range b.Keys() {
			if !key.Matches(keyName(k), held...) {
				t.Errorf("help entry %q: no table handles %q", b.Help().Key, k)
			}
		}
	}
}

// handled is a table's bindings and whether each has a handler.
func handled[S, F any](t keyTable[S, F]) ([]key.Binding, []bool) {
	bs, dos := make([]key.Binding, len(t)), make([]bool, len(t))
	for i, a := range t {
		bs[i], dos[i] = a.key, a.do != nil
	}
	return bs, dos
}

// TestScreenHelpKeysAct: on each screen, each key its help bar lists
// changes the state there (a key shown is a key handled on that screen);
// the digit of the screen already shown is the one exception.
func TestScreenHelpKeysAct(t *testing.T) {
	b := Bounds{Variants: 3, Layers: 4, Step: 5000, LastStep: 9000, SeekStride: 15, CellSteps: 2, Page: 2}
	c := common{data: &store{}}
	screens := newScreens(&c)
	for _, replay := range []bool{false, true} {
		for sc := range numScreens {
			var starts []State
			for _, cursor := range []int{-1, 50} {
				s := NewState(replay, 1)
				s.Screen, s.Cursor, s.Layer = sc, cursor, 1
				starts = append(starts, s)
				s.ZoomSpan, s.Hidden = 20, 1
				starts = append(starts, s)
			}
			for _, bd := range keymap.shortHelp(screens[sc], replay) {
				for _, k := range bd.Keys() {
					if k == string(rune('1'+sc)) {
						continue
					}
					acted := false
					for _, s := range starts {
						acted = acted || rootActs(s, k, b) || screenKeyActs(sc, keyName(k), replay)
					}
					if !acted {
						t.Errorf("%s (replay %v): %q of help entry %q changes nothing", sc.Title(), replay, k, bd.Help().Key)
					}
				}
			}
		}
	}
}

// screenKeyActs: screen sc's own key table takes k and changes the
// screen's state (or asks the root for a seek), from a middle row or page.
func screenKeyActs(sc Screen, k keyName, replay bool) bool {
	switch sc {
	case ScreenOverview:
		var s overviewState
		_, ok := overviewKeys.handle(&s, 3, k, replay)
		return ok && s != overviewState{}
	case ScreenEvents:
		s := eventsState{sel: 1, kind: -1, variant: -1}
		cmd, ok := eventsKeys.handle(&s, eventsFacts{steps: []int{10, 50, 90}, variants: []int{0, 2, 1}, nVariants: 3, page: 2}, k, replay)
		return ok && (cmd != nil || s != eventsState{sel: 1, kind: -1, variant: -1})
	case ScreenSummary:
		var s summaryState
		_, ok := summaryKeys.handle(&s, 4, k, replay)
		return ok && s != summaryState{}
	case ScreenGrid:
		s := 1
		_, ok := gridKeys.handle(&s, 3, k, replay)
		return ok && s != 1
	}
	return false
}

// TestNavigateIgnoresUnboundKeys: a key no binding holds leaves the state
// as it was (but for the consumed seek request).
func TestNavigateIgnoresUnboundKeys(t *testing.T) {
	for _, k := range []string{"x", "ctrl+a", "f5", "alt+q"} {
		if key.Matches(keyName(k), fullHelp(true)...) {
			t.Fatalf("%q is bound; pick another", k)
		}
		s := NewState(true, 1)
		if got, cmd := Navigate(s, k, Bounds{Variants: 2, Layers: 2}); got != s || cmd != nil {
			t.Errorf("Navigate(%q) = %+v, want unchanged", k, got)
		}
	}
}
