package tui

import (
	"testing"

	"charm.land/bubbles/v2/key"
)

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
	for _, col := range keymap.fullHelp(true) {
		for _, bd := range col {
			for _, k := range bd.Keys() {
				acted := false
				for _, s := range starts {
					if Navigate(s, k, b) != s || screenKeyActs(s.Screen, keyName(k), s.Replay) {
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
						acted = acted || Navigate(s, k, b) != s || screenKeyActs(sc, keyName(k), replay)
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
		for _, col := range keymap.fullHelp(true) {
			if key.Matches(keyName(k), col...) {
				t.Fatalf("%q is bound; pick another", k)
			}
		}
		s := NewState(true, 1)
		if got := Navigate(s, k, Bounds{Variants: 2, Layers: 2}); got != s {
			t.Errorf("Navigate(%q) = %+v, want unchanged", k, got)
		}
	}
}
