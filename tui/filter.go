package tui

import (
	"path"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// The text filter (/): typed on the Events screen it keeps the events
// whose variant, layer, kind or message match; on the Grid screen the
// probes and layers whose names match. A pattern with a glob character
// (* ? [) is a glob over the whole name, anything else a substring; case
// does not matter either way (LEET's metric filter works alike).

// matchName reports whether name matches the filter pattern.
func matchName(pattern, name string) bool {
	if pattern == "" {
		return true
	}
	p, n := strings.ToLower(pattern), strings.ToLower(name)
	if strings.ContainsAny(p, "*?[") {
		ok, err := path.Match(p, n)
		return ok && err == nil
	}
	return strings.Contains(n, p)
}

// matchAny reports whether any of the names matches.
func matchAny(pattern string, names ...string) bool {
	for _, n := range names {
		if matchName(pattern, n) {
			return true
		}
	}
	return false
}

// textFilter is the text filter (/) the Events and Grid screens share: a
// component of its own, one pattern that both apply and show (typed on
// the one, it holds on the other), and its keys in two tables: filterKeys
// on a screen that shows it, typingKeys while it is typed. The root owns
// the one instance (common.filter) and routes the keys to it.
type textFilter struct {
	pattern string
	typing  bool // the pattern is being typed: every key goes to it
}

// filterKeys are the filter's keys on a screen that shows it, given
// whether the chart cursor is on: / types (on from the pattern there);
// esc clears it, with the cursor off (else esc is the root's: it turns
// the cursor off first).
var filterKeys = keyTable[textFilter, bool]{
	{key: keymap.text, do: func(f *textFilter, _ bool, _ keyName) tea.Cmd {
		f.typing = true
		return nil
	}},
	{key: keymap.esc, when: func(cursorOn bool) bool { return !cursorOn }, do: func(f *textFilter, _ bool, _ keyName) tea.Cmd {
		f.pattern = ""
		return nil
	}},
}

// typingKeys are the keys of the filter being typed: enter keeps it, esc
// drops it, backspace deletes; any other key that names one printable
// character is that text (typeKey).
var typingKeys = keyTable[textFilter, struct{}]{
	{key: keymap.keep, do: func(f *textFilter, _ struct{}, _ keyName) tea.Cmd {
		f.typing = false
		return nil
	}},
	{key: keymap.drop, do: func(f *textFilter, _ struct{}, _ keyName) tea.Cmd {
		f.typing, f.pattern = false, ""
		return nil
	}},
	{key: keymap.backspace, do: func(f *textFilter, _ struct{}, _ keyName) tea.Cmd {
		if r := []rune(f.pattern); len(r) > 0 {
			f.pattern = string(r[:len(r)-1])
		}
		return nil
	}},
	{key: keymap.space, do: func(f *textFilter, _ struct{}, _ keyName) tea.Cmd {
		f.pattern += " "
		return nil
	}},
}

// typeKey applies a key to the filter being typed: typingKeys', else a
// key that names one printable character is appended; any other does
// nothing (the typing holds every key).
func (f *textFilter) typeKey(k keyName) {
	if _, ok := typingKeys.handle(f, struct{}{}, k, false); ok {
		return
	}
	if r := []rune(k); len(r) == 1 && r[0] >= ' ' {
		f.pattern += string(k)
	}
}
