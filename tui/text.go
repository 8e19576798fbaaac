package tui

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// wrapWords breaks plain text into lines of at most w cells.
func wrapWords(s string, w int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case ansi.StringWidth(line)+1+ansi.StringWidth(word) <= w:
			line += " " + word
		default:
			out = append(out, line)
			line = word
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// shortenPath keeps the end of a path (the file name) within w cells.
func shortenPath(p string, w int) string {
	r := []rune(p)
	if len(r) <= w || w < 2 {
		return p
	}
	return "…" + string(r[len(r)-w+1:])
}

// pageHint says which slice of a paged list is shown ("" when all fit).
func pageHint(what string, first, last, total int, key string) string {
	if last-first >= total {
		return ""
	}
	return fmt.Sprintf("%s %d–%d of %d (%s)", what, first+1, last, total, key)
}

// withNote right-aligns a note that must stay visible (the zoom, the
// cursor), truncating line instead.
func withNote(line, note string, w int) string {
	if note == "" {
		return line
	}
	return joinLR(line, note, w)
}

// withHint right-aligns hint on line when both fit in w, else drops it.
func withHint(line, hint string, w int) string {
	if hint == "" || ansi.StringWidth(line)+2+ansi.StringWidth(hint) > w {
		return line
	}
	return joinLR(line, hint, w)
}

// fit truncates or pads a styled line to exactly w cells.
func fit(s string, w int) string {
	sw := cellWidth(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-sw)
}

// cellWidth is ansi.StringWidth, fast for the lines the dashboard draws
// most (braille charts, box drawing, ASCII, SGR escapes): runes of those
// blocks are one cell each and are counted without grapheme segmentation;
// any other rune, or any other escape, hands the line to ansi.StringWidth.
func cellWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			// CSI: ESC [ parameters, final byte 0x40–0x7E.
			if i+1 >= len(s) || s[i+1] != '[' {
				return ansi.StringWidth(s)
			}
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j + 1
			continue
		case c >= 0x20 && c < 0x7f:
			n++
			i++
			continue
		case c < 0x80:
			return ansi.StringWidth(s)
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !(r >= 0x2500 && r <= 0x259f) && !(r >= 0x2800 && r <= 0x28ff) {
			return ansi.StringWidth(s)
		}
		n++
		i += size
	}
	return n
}

// joinLR puts left and right on one line of width w, truncating left first.
func joinLR(left, right string, w int) string {
	rw := ansi.StringWidth(right)
	if rw >= w {
		return fit(right, w)
	}
	return fit(left, w-rw-1) + " " + right
}

func fmtDuration(d time.Duration) string {
	d = d.Round(time.Second)
	h := int(d / time.Hour)
	mnt := int(d/time.Minute) % 60
	sec := int(d/time.Second) % 60
	return fmt.Sprintf("%02d:%02d:%02d", h, mnt, sec)
}

func center(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw >= w {
		return s
	}
	return strings.Repeat(" ", (w-sw)/2) + s
}

func truncName(s string, w int) string {
	r := []rune(s)
	if len(r) <= w {
		return s
	}
	return string(r[:w-1]) + "…"
}
