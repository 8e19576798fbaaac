package tui

import (
	"path"
	"strings"

	"charm.land/bubbles/v2/key"
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

// filterKey applies a key to the filter being typed: printable text is
// appended, backspace deletes, enter keeps the filter, esc drops it.
func filterKey(s State, k keyName) State {
	km := &keymap
	switch {
	case key.Matches(k, km.keep):
		s.Filtering = false
	case key.Matches(k, km.drop):
		s.Filtering, s.Filter = false, ""
	case key.Matches(k, km.backspace):
		if r := []rune(s.Filter); len(r) > 0 {
			s.Filter = string(r[:len(r)-1])
		}
	case key.Matches(k, km.space):
		s.Filter += " "
	default:
		// Text: a key that names one printable character is that character.
		if r := []rune(k); len(r) == 1 && r[0] >= ' ' {
			s.Filter += string(k)
		}
	}
	return s
}
