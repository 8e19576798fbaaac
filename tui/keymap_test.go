package tui

import (
	"testing"

	"charm.land/bubbles/v2/key"
)

// TestEveryHelpKeyActs: each key the full help lists changes the state on
// at least one screen (live or replay, the cursor on or off), so the help
// names no key that dispatch ignores.
func TestEveryHelpKeyActs(t *testing.T) {
	b := Bounds{Variants: 3, Layers: 4, EventSteps: []int{10, 50, 90}, EventVariants: []int{0, 2, 1},
		Step: 5000, LastStep: 9000, SeekStride: 15, CellSteps: 2, SortCols: 4, Standings: 3, Page: 2, GridPages: 3}
	var starts []State
	for _, replay := range []bool{false, true} {
		for sc := range numScreens {
			for _, cursor := range []int{-1, 50} {
				s := NewState(replay, 1)
				s.Screen, s.Cursor, s.Event, s.Layer, s.GridPage = sc, cursor, 1, 1, 1
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
					if Navigate(s, k, b) != s {
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
	b := Bounds{Variants: 3, Layers: 4, EventSteps: []int{10, 50, 90}, EventVariants: []int{0, 2, 1},
		Step: 5000, LastStep: 9000, SeekStride: 15, CellSteps: 2, SortCols: 4, Standings: 3, Page: 2, GridPages: 3}
	c := common{data: &store{}}
	screens := newScreens(&c)
	for _, replay := range []bool{false, true} {
		for sc := range numScreens {
			var starts []State
			for _, cursor := range []int{-1, 50} {
				s := NewState(replay, 1)
				s.Screen, s.Cursor, s.Event, s.Layer, s.GridPage = sc, cursor, 1, 1, 1
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
						acted = acted || Navigate(s, k, b) != s
					}
					if !acted {
						t.Errorf("%s (replay %v): %q of help entry %q changes nothing", sc.Title(), replay, k, bd.Help().Key)
					}
				}
			}
		}
	}
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
