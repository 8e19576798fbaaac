package tui

import (
	"math"
	"strconv"

	"github.com/charmbracelet/x/ansi"
)

// outside reports whether a column's finite values all lie beyond the
// axis.
func outside(sp colSpan, ax axis) bool {
	lo, hi := nanMin(sp.Min, sp.Max), sp.Max
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return false
	}
	return lo > ax.hi || hi < ax.lo
}

// cellStyle is what decides a plot cell's escape sequences.
type cellStyle struct {
	color               int // series palette index, -1 none
	warm, cursor, faint bool
}

// legendEntry is one variant in a chart legend: its line mark, name and the
// value it reads at the cursor (or its latest).
func (m *common) legendEntry(i int, label, mark, value string) string {
	s := m.styles
	if s.NoColor && mark == "─" {
		if g := m.glyph(i); g != "" {
			mark = g
		}
	}
	e := s.seriesStyle(i).Render(mark + " " + label)
	if value != "" {
		e += " " + value
	}
	return e
}

// joinLegend lays legend entries on as few lines as fit w, at most
// maxLines; the entries that do not fit are counted at the end ("+2").
func joinLegend(entries []string, w, maxLines int) []string {
	widths := make([]int, len(entries))
	for i, e := range entries {
		widths[i] = ansi.StringWidth(e)
	}
	var lines []string
	i := 0
	for i < len(entries) && len(lines) < maxLines {
		last := len(lines) == maxLines-1
		line, lw := "", 0
		j := i
		for ; j < len(entries); j++ {
			add := widths[j]
			if lw > 0 {
				add += 2
			}
			// The last line keeps room for the count of what is left.
			rest := 0
			if last && j+1 < len(entries) {
				rest = len(" +") + len(strconv.Itoa(len(entries)-j-1))
			}
			if lw+add+rest > w && lw > 0 {
				break
			}
			if lw > 0 {
				line += "  "
			}
			line += entries[j]
			lw += add
		}
		if last && j < len(entries) {
			line += " +" + strconv.Itoa(len(entries)-j)
			j = len(entries)
		}
		lines = append(lines, line)
		i = j
	}
	return lines
}
