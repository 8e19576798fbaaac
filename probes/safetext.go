package probes

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SafeText is the one sanitiser for every string that came from outside
// the program (a run file, a stream, a flag) before it reaches a terminal
// or a text file: run ids, model and data names, variant specs, layer
// names, config keys and values, alert messages, paths. Each byte or rune
// a terminal acts on is shown escaped instead, so a hostile name cannot
// retitle a window, clear the screen or forge a line:
//
//   - C0 controls (ESC, CR, LF, TAB, BEL, …) and DEL: \n \r \t, else \xNN
//   - C1 controls U+0080–U+009F (8-bit CSI, OSC): \u0085 style
//   - bytes that are not UTF-8: \xNN
//   - line and paragraph separators and bidirectional overrides
//     (U+2028/9, U+202A–202E, U+2066–2069), which move or reorder text:
//     \u202e style
//
// A backslash itself is kept, so the result is not reversible, but it is
// printable, one line, and SafeText(SafeText(s)) == SafeText(s). Clean
// strings (nearly all) are returned without allocating.
func SafeText(s string) string {
	if textIsSafe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// SafeTextMax is SafeText cut to at most max bytes of the original (on a
// rune boundary), with the length said when it was cut: a 100,000-byte
// flag value is not echoed whole in its error line.
func SafeTextMax(s string, max int) string {
	if len(s) <= max {
		return SafeText(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return SafeText(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
}

func textIsSafe(s string) bool {
	for i, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || unsafeRune(r):
			return false
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return false
			}
		}
	}
	return true
}

// unsafeRune: the runes beyond C0 that a terminal or a text layout acts on.
func unsafeRune(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 ||
		r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// Safe returns m with every string passed through SafeText (a copy: the
// caller's slices and map are not changed). Readers of run files and
// streams hand this out; outputs call it again on what they are given
// (cheap: clean strings are not copied) so that no path reaches a terminal
// without it.
func (m RunMeta) Safe() RunMeta {
	m.RunID, m.Model, m.Data, m.Metric = SafeText(m.RunID), SafeText(m.Model), SafeText(m.Data), SafeText(m.Metric)
	vs := make([]VariantMeta, len(m.Variants))
	for i, v := range m.Variants {
		v.Name, v.Spec = SafeText(v.Name), SafeText(v.Spec)
		vs[i] = v
	}
	m.Variants = vs
	if m.Layers != nil {
		ls := make([]string, len(m.Layers))
		for i, l := range m.Layers {
			ls[i] = SafeText(l)
		}
		m.Layers = ls
	}
	if m.Config != nil {
		c := make(map[string]string, len(m.Config))
		for k, v := range m.Config {
			c[SafeText(k)] = SafeText(v)
		}
		m.Config = c
	}
	return m
}

// SafeStrings passes the Frame's strings (evaluation splits, alert
// messages) through SafeText in place.
func (f *Frame) SafeStrings() {
	for i := range f.Eval {
		f.Eval[i].Split = SafeText(f.Eval[i].Split)
	}
	for i := range f.Alerts {
		f.Alerts[i].Msg = SafeText(f.Alerts[i].Msg)
	}
}
