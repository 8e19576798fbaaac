package tui

import (
	"math"
	"strings"

	"github.com/normtop/normtop/probes"
)

// chartSeries is one line, or one set of markers, of a chart.
type chartSeries struct {
	label  string
	color  int             // palette index: the variant's
	glyph  string          // the variant's character, told apart without colour
	bs     []probes.Bucket // smoothed / log-scaled already (transformBuckets)
	points bool            // evaluations: a marker per point, not a line
	// faint: context drawn dim behind the lines (the raw series behind its
	// smoothed line, a band of ± sd over seeds): never on top of a line,
	// and left out of the y range (a line's noise does not squash it).
	// Not drawn without colour, where it could not be told from a line.
	faint bool
}

// chartSpec is where and how a chart is drawn.
type chartSpec struct {
	w, h   int // the whole chart: y labels, plot, x axis and its labels
	lo, hi int // x range in steps (or index), inclusive
	log    bool
	warmup int // steps ≤ warmup are marked (running statistics warming up); 0 none
	cursor int // step of the cursor column, -1 none
	// row is the screen row of the chart's first line: the plot is
	// recorded as a mouse zone there. 0: not clickable.
	row int
	// yFrom: the y range fits the values at steps ≥ yFrom only (the early
	// transient left out, the lines above it clipped); 0: every step.
	yFrom int
}

// braille dot bits: column 0 rows 0..3, then column 1 rows 0..3.
var brailleBits = [2][4]uint8{{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}}

// canvas is the plot area: one braille cell (2×4 dots) per character, the
// series colour of the last line through it, and an overlay character
// (evaluation markers, NO_COLOR glyphs, the cursor) that wins over dots.
type canvas struct {
	w, h  int
	dots  []uint8
	color []int8
	over  []rune
	// fdots and fcolor are the faint context's dots, shown only in cells
	// no line passes through (a line's cell shows the line alone).
	fdots  []uint8
	fcolor []int8
}

func newCanvas(w, h int) *canvas {
	c := &canvas{w: w, h: h, dots: make([]uint8, w*h), color: make([]int8, w*h), over: make([]rune, w*h),
		fdots: make([]uint8, w*h), fcolor: make([]int8, w*h)}
	for i := range c.color {
		c.color[i] = -1
	}
	return c
}

// column lights dots y0..y1 (inclusive, y0 ≤ y1) of dot column x: a whole
// cell's share at a time, as long runs (a noisy series' min–max bar) are
// the common case.
func (c *canvas) column(x, y0, y1 int, color int, faint bool) {
	cx := x / 2
	if cx < 0 || cx >= c.w {
		return
	}
	y0, y1 = max(y0, 0), min(y1, 4*c.h-1)
	bits := &brailleBits[x&1]
	for cy := y0 / 4; cy <= y1/4; cy++ {
		lo, hi := max(y0-4*cy, 0), min(y1-4*cy, 3)
		var m uint8
		for r := lo; r <= hi; r++ {
			m |= bits[r]
		}
		i := cy*c.w + cx
		if faint {
			c.fdots[i] |= m
			c.fcolor[i] = int8(color)
			continue
		}
		c.dots[i] |= m
		c.color[i] = int8(color)
	}
}

func (c *canvas) mark(cx, cy int, r rune, color int) {
	if cx < 0 || cx >= c.w || cy < 0 || cy >= c.h {
		return
	}
	i := cy*c.w + cx
	c.over[i] = r
	c.color[i] = int8(color)
}

// yRange is the extent of every line's points in steps [lo, hi] (faint
// context left out).
func yRange(series []chartSeries, lo, hi int) (ylo, yhi float64, ok bool) {
	ylo, yhi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		if s.faint {
			continue
		}
		for i := range s.bs {
			b := &s.bs[i]
			if b.Count == 0 || b.LastStep < lo || b.FirstStep > hi {
				continue
			}
			// Plain comparisons: the values are finite here, and math.Min's
			// NaN and ±0 cases cost a chart of dozens of series dearly.
			for _, v := range [2]float64{b.Min, b.Max} {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					if v < ylo {
						ylo = v
					}
					if v > yhi {
						yhi = v
					}
				}
			}
		}
	}
	return ylo, yhi, ylo <= yhi
}

// drawChart renders series overlaid on one y axis into exactly spec.h lines
// of spec.w cells: round ticks on the y axis, steps on the x axis, the
// warm-up window marked on the axis line (┄) and tinted, the cursor column.
func (m *Model) drawChart(series []chartSeries, spec chartSpec) []string {
	out := make([]string, 0, spec.h)
	ph := spec.h - 2
	if ph < 2 || spec.w < 20 {
		return out
	}
	ylo, yhi, ok := yRange(series, max(spec.lo, spec.yFrom), spec.hi)
	if !ok {
		ylo, yhi, ok = yRange(series, spec.lo, spec.hi)
	}
	if !ok {
		for range spec.h {
			out = append(out, "")
		}
		out[spec.h/2] = m.styles.Dim.Render(center("no data yet", spec.w))
		return out
	}
	maxTicks := min(max(ph/2+1, 2), 6)
	var ax axis
	if spec.log {
		ax = logAxis(ylo, yhi, maxTicks)
	} else {
		ax = linearAxis(ylo, yhi, maxTicks)
	}
	lw := 1
	for _, l := range ax.labels {
		lw = max(lw, len(l))
	}
	pw := spec.w - lw - 1
	if pw < 4 {
		return out
	}
	cv := newCanvas(pw, ph)
	dotsH := 4 * ph
	ydot := func(v float64) int {
		// ±Inf (a diverging series) pins to the top or bottom row rather
		// than through an undefined float-to-int conversion.
		switch {
		case math.IsInf(v, 1):
			return 0
		case math.IsInf(v, -1):
			return dotsH - 1
		}
		f := (ax.hi - v) / (ax.hi - ax.lo)
		return min(max(int(math.Round(f*float64(dotsH-1))), 0), dotsH-1)
	}
	n := 2 * pw
	var spans []colSpan
	multi := len(series) > 1
	nLines := 0
	for _, s := range series {
		if !s.faint && !s.points {
			nLines++
		}
	}
	glyphEvery := max(8, 2*nLines) // cells between a line's NO_COLOR glyphs
	li := -1
	for _, s := range series {
		if s.faint && m.styles.NoColor {
			continue
		}
		if !s.faint && !s.points {
			li++
		}
		spans = downsample(s.bs, spec.lo, spec.hi, n, spans)
		prev, prevX := -1, -1
		for x, sp := range spans {
			if sp.N == 0 || math.IsNaN(sp.Max) {
				continue
			}
			if spec.yFrom > 0 && outside(sp, ax) {
				// Above (or below) a range fitted after the transient: not
				// drawn, rather than pinned to the edge as a flat line.
				prev = -1
				continue
			}
			if s.points {
				r := '•'
				if m.styles.NoColor && s.glyph != "" {
					r = []rune(s.glyph)[0]
				}
				cv.mark(x/2, ydot(sp.Last)/4, r, s.color)
				continue
			}
			// Points further apart than a column (a probe measured every k
			// steps, a spectrum's 32 values) are joined by a straight line.
			if prev >= 0 && x-prevX > 1 {
				to := ydot((sp.Min + sp.Max) / 2)
				for xi := prevX + 1; xi < x; xi++ {
					yi := prev + (to-prev)*(xi-prevX)/(x-prevX)
					cv.column(xi, min(yi, prev), max(yi, prev), s.color, s.faint)
					prev = yi
				}
			}
			y0, y1 := ydot(sp.Max), ydot(nanMin(sp.Min, sp.Max))
			if prev >= 0 {
				y0, y1 = min(y0, prev), max(y1, prev)
			}
			cv.column(x, y0, y1, s.color, s.faint)
			prev, prevX = ydot(sp.Last), x
			// Without colour, lines are told apart by their glyph repeated
			// along them, staggered so that overlapping lines show each.
			if m.styles.NoColor && multi && s.glyph != "" && x&1 == 1 && (x/2+2*li)%glyphEvery == 0 {
				cv.mark(x/2, prev/4, []rune(s.glyph)[0], s.color)
			}
		}
	}
	span := spec.hi - spec.lo + 1
	cellOf := func(step int) int {
		if step < spec.lo || step > spec.hi {
			return -1
		}
		return int(int64(step-spec.lo) * int64(pw) / int64(span))
	}
	warmEnd := -1 // last cell whose steps all lie in the warm-up window
	if spec.warmup >= spec.lo {
		warmEnd = cellOf(min(spec.warmup, spec.hi))
	}
	curCell := -1
	if spec.cursor >= 0 {
		curCell = cellOf(spec.cursor)
	}
	if curCell >= 0 {
		for cy := range ph {
			i := cy*pw + curCell
			if cv.dots[i] == 0 && cv.over[i] == 0 {
				cv.over[i] = '│'
			}
		}
	}

	if spec.row > 0 {
		m.zones = append(m.zones, zone{kind: zoneChart, x0: lw + 1, x1: lw + 1 + pw, y0: spec.row, y1: spec.row + ph, lo: spec.lo, hi: spec.hi})
	}

	// Tick labels sit on the row holding the tick's dot.
	rowLabel := make([]string, ph)
	for i, t := range ax.ticks {
		r := ydot(t) / 4
		if rowLabel[r] == "" {
			rowLabel[r] = ax.labels[i]
		}
	}
	st := m.styles
	var b strings.Builder
	for cy := range ph {
		b.Reset()
		axisCh := "│"
		if rowLabel[cy] != "" {
			axisCh = "┤"
		}
		b.WriteString(st.Dim.Render(strings.Repeat(" ", lw-len(rowLabel[cy])) + rowLabel[cy] + axisCh))
		cur := cellStyle{color: -2}
		pre, post := "", ""
		for cx := range pw {
			i := cy*pw + cx
			cs := cellStyle{color: int(cv.color[i]), warm: cx <= warmEnd, cursor: cx == curCell}
			dots := cv.dots[i]
			if dots == 0 && cv.over[i] == 0 && cv.fdots[i] != 0 {
				cs.color, cs.faint, dots = int(cv.fcolor[i]), true, cv.fdots[i]
			}
			if cs != cur {
				b.WriteString(post)
				pre, post = st.cellSGR(cs)
				b.WriteString(pre)
				cur = cs
			}
			switch {
			case cv.over[i] != 0:
				b.WriteRune(cv.over[i])
			default:
				b.WriteRune(rune(0x2800) + rune(dots))
			}
		}
		b.WriteString(post)
		out = append(out, b.String())
	}

	// x axis: ┬ at each tick, ┄ over the warm-up window, ┼ at the cursor.
	xt := stepTicks(spec.lo, spec.hi, max(pw/12, 2))
	tickAt := make(map[int]int, len(xt))
	for _, t := range xt {
		tickAt[cellOf(t)] = t
	}
	b.Reset()
	b.WriteString(strings.Repeat(" ", lw) + "└")
	for cx := range pw {
		_, tick := tickAt[cx]
		switch {
		case cx == curCell:
			b.WriteString("┼")
		case tick:
			b.WriteString("┬")
		case cx <= warmEnd:
			b.WriteString("┄")
		default:
			b.WriteString("─")
		}
	}
	out = append(out, st.Dim.Render(b.String()))
	labels := []byte(strings.Repeat(" ", spec.w))
	next := 0
	for _, t := range xt {
		l := fmtStep(t)
		x := lw + 1 + cellOf(t) - len(l)/2
		x = min(max(x, next), spec.w-len(l))
		if x < next || x < 0 {
			continue
		}
		copy(labels[x:], l)
		next = x + len(l) + 2
	}
	out = append(out, st.Dim.Render(strings.TrimRight(string(labels), " ")))
	return out
}
