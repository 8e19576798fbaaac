package tui

import (
	"math"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/normtop/normtop/probes"
)

// column is one table column: its heading, width, right alignment, and
// drop priority (the highest drop first when the screen is narrow).
type column struct {
	head  string
	w     int
	right bool
	drop  int
}

// fitColumns widens each column to its heading (and a sort arrow) and
// keeps the columns that fit in w: every column of drop 0, then the others
// by ascending drop while they fit, so a narrow column of low priority
// still fills the room a wide one left. It returns the kept indices in
// column order.
func fitColumns(cols []column, w int) []int {
	for i := range cols {
		cols[i].w = max(cols[i].w, ansi.StringWidth(cols[i].head)+1)
	}
	keep := make([]bool, len(cols))
	total := 0
	for i, c := range cols {
		if c.drop == 0 {
			keep[i] = true
			total += c.w + 1
		}
	}
	order := make([]int, 0, len(cols))
	for i, c := range cols {
		if c.drop > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return cols[order[a]].drop < cols[order[b]].drop })
	for _, i := range order {
		if total+cols[i].w+1 <= w+1 {
			keep[i] = true
			total += cols[i].w + 1
		}
	}
	var out []int
	for i, k := range keep {
		if k {
			out = append(out, i)
		}
	}
	return out
}

// pad fits a styled cell into w cells, left or right aligned.
func pad(s string, w int, right bool) string {
	sw := ansi.StringWidth(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	if right {
		return strings.Repeat(" ", w-sw) + s
	}
	return s + strings.Repeat(" ", w-sw)
}

// tableLine joins the kept cells of a row.
func tableLine(cols []column, keep []int, cells []string) string {
	var b strings.Builder
	for k, i := range keep {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(pad(cells[i], cols[i].w, cols[i].right))
	}
	return b.String()
}

// colFormat returns the formatter of one table column: probes.FormatValue,
// and exponent notation for every cell as soon as one needs it, so a
// column never mixes 2.37e-4 with 0.00858.
func colFormat(vals []float64) func(float64) string {
	for _, v := range vals {
		a := math.Abs(v)
		if a != 0 && !math.IsNaN(a) && !math.IsInf(a, 0) && (a < 1e-3 || a >= 1e5) {
			return valueExp
		}
	}
	return probes.FormatValue
}

// valueExp is a value in exponent notation whatever its magnitude: a
// column spanning decades (colFormat), the gradients' statistics (every
// row alike: they span many decades, the point of that view).
func valueExp(v float64) string { return probes.FormatSigExp(v, probes.ValueDigits) }
