package tui

import (
	"math"
	"strings"
)

// chartSeries is one line, or one set of markers, of a chart.
type chartSeries struct {
	label  string
	color  int      // palette index: the variant's
	glyph  string   // the variant's character, told apart without colour
	bs     []bucket // smoothed / log-scaled already (transformBuckets)
	points bool     // evaluations: a marker per point, not a line
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
// of spec.w cells (renderChart), and records its plot as a mouse zone
// when spec.row says where it lies on the screen.
func (m *common) drawChart(series []chartSeries, spec chartSpec) []string {
	out, z := renderChart(m.styles, series, spec)
	if z != nil && spec.row > 0 {
		m.lay.zones = append(m.lay.zones, *z)
	}
	return out
}

// chartGeom is where a chart's parts lie: the y axis, the label column's
// and the plot's widths, the plot's rows, the warm-up and cursor cells.
type chartGeom struct {
	spec             chartSpec
	ax               axis
	lw, pw, ph       int // label width, plot width and height in cells
	warmEnd, curCell int // last cell all in the warm-up window, the cursor's cell; -1 none
}

// ydot is the dot row of value v (0 at the top).
func (g *chartGeom) ydot(v float64) int {
	dotsH := 4 * g.ph
	// ±Inf (a diverging series) pins to the top or bottom row rather
	// than through an undefined float-to-int conversion.
	switch {
	case math.IsInf(v, 1):
		return 0
	case math.IsInf(v, -1):
		return dotsH - 1
	}
	f := (g.ax.hi - v) / (g.ax.hi - g.ax.lo)
	return min(max(int(math.Round(f*float64(dotsH-1))), 0), dotsH-1)
}

// cellOf is the plot column of step, -1 outside the x range.
func (g *chartGeom) cellOf(step int) int {
	if step < g.spec.lo || step > g.spec.hi {
		return -1
	}
	span := g.spec.hi - g.spec.lo + 1
	return int(int64(step-g.spec.lo) * int64(g.pw) / int64(span))
}

// renderChart renders series overlaid on one y axis into exactly spec.h
// lines of spec.w cells: round ticks on the y axis, steps on the x axis,
// the warm-up window marked on the axis line (┄) and tinted, the cursor
// column. The zone is the plot's, nil when nothing was plotted.
func renderChart(st *Styles, series []chartSeries, spec chartSpec) ([]string, *zone) {
	out := make([]string, 0, spec.h)
	ph := spec.h - 2
	if ph < 2 || spec.w < 20 {
		return out, nil
	}
	ylo, yhi, ok := yRange(series, max(spec.lo, spec.yFrom), spec.hi)
	if !ok {
		ylo, yhi, ok = yRange(series, spec.lo, spec.hi)
	}
	if !ok {
		for range spec.h {
			out = append(out, "")
		}
		out[spec.h/2] = st.Dim.Render(center("no data yet", spec.w))
		return out, nil
	}
	g := chartGeom{spec: spec, ph: ph, lw: 1, warmEnd: -1, curCell: -1}
	maxTicks := min(max(ph/2+1, 2), 6)
	if spec.log {
		g.ax = logAxis(ylo, yhi, maxTicks)
	} else {
		g.ax = linearAxis(ylo, yhi, maxTicks)
	}
	for _, l := range g.ax.labels {
		g.lw = max(g.lw, len(l))
	}
	g.pw = spec.w - g.lw - 1
	if g.pw < 4 {
		return out, nil
	}
	cv := newCanvas(g.pw, ph)
	plotSeries(cv, &g, series, st.NoColor)
	if spec.warmup >= spec.lo {
		g.warmEnd = g.cellOf(min(spec.warmup, spec.hi))
	}
	if spec.cursor >= 0 {
		g.curCell = g.cellOf(spec.cursor)
	}
	if g.curCell >= 0 {
		for cy := range ph {
			i := cy*g.pw + g.curCell
			if cv.dots[i] == 0 && cv.over[i] == 0 {
				cv.over[i] = '│'
			}
		}
	}
	z := &zone{kind: zoneChart, x0: g.lw + 1, x1: g.lw + 1 + g.pw, y0: spec.row, y1: spec.row + ph, lo: spec.lo, hi: spec.hi}
	out = plotRows(out, st, cv, &g)
	return xAxisRows(out, st, &g), z
}

// plotSeries draws every series on the canvas: lines as min–max columns
// joined across gaps, evaluations as markers, faint context dim (not
// without colour), and without colour each line's glyph along it.
func plotSeries(cv *canvas, g *chartGeom, series []chartSeries, noColor bool) {
	spec := g.spec
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
	// Evaluation markers go on after every line: a later line never
	// covers an earlier variant's val points.
	ordered := make([]chartSeries, 0, len(series))
	for _, s := range series {
		if !s.points {
			ordered = append(ordered, s)
		}
	}
	for _, s := range series {
		if s.points {
			ordered = append(ordered, s)
		}
	}
	for _, s := range ordered {
		if s.faint && noColor {
			continue
		}
		if !s.faint && !s.points {
			li++
		}
		spans = downsample(s.bs, spec.lo, spec.hi, 2*g.pw, spans)
		prev, prevX := -1, -1
		for x, sp := range spans {
			if sp.N == 0 || math.IsNaN(sp.Max) {
				continue
			}
			if spec.yFrom > 0 && outside(sp, g.ax) {
				// Above (or below) a range fitted after the transient: not
				// drawn, rather than pinned to the edge as a flat line.
				prev = -1
				continue
			}
			if s.points {
				r := '•'
				if noColor && s.glyph != "" {
					r = []rune(s.glyph)[0]
				}
				cv.mark(x/2, g.ydot(sp.Last)/4, r, s.color)
				continue
			}
			prev, prevX = plotSpan(cv, g, s, sp, x, prev, prevX)
			// Without colour, lines are told apart by their glyph repeated
			// along them, staggered so that overlapping lines show each.
			if noColor && multi && s.glyph != "" && x&1 == 1 && (x/2+2*li)%glyphEvery == 0 {
				cv.mark(x/2, prev/4, []rune(s.glyph)[0], s.color)
			}
		}
	}
}

// plotSpan draws a line's dot column x (its span sp) joined to the last
// one drawn (prevX, at dot row prev; -1 none), and returns the new last.
func plotSpan(cv *canvas, g *chartGeom, s chartSeries, sp colSpan, x, prev, prevX int) (int, int) {
	// Points further apart than a column (a probe measured every k
	// steps, a spectrum's 32 values) are joined by a straight line.
	if prev >= 0 && x-prevX > 1 {
		to := g.ydot((sp.Min + sp.Max) / 2)
		for xi := prevX + 1; xi < x; xi++ {
			yi := prev + (to-prev)*(xi-prevX)/(x-prevX)
			cv.column(xi, min(yi, prev), max(yi, prev), s.color, s.faint)
			prev = yi
		}
	}
	y0, y1 := g.ydot(sp.Max), g.ydot(nanMin(sp.Min, sp.Max))
	if prev >= 0 {
		y0, y1 = min(y0, prev), max(y1, prev)
	}
	cv.column(x, y0, y1, s.color, s.faint)
	return g.ydot(sp.Last), x
}

// plotRows appends the plot's rows, each led by its y label and axis.
func plotRows(out []string, st *Styles, cv *canvas, g *chartGeom) []string {
	// Tick labels sit on the row holding the tick's dot.
	rowLabel := make([]string, g.ph)
	for i, t := range g.ax.ticks {
		r := g.ydot(t) / 4
		if rowLabel[r] == "" {
			rowLabel[r] = g.ax.labels[i]
		}
	}
	var b strings.Builder
	for cy := range g.ph {
		b.Reset()
		axisCh := "│"
		if rowLabel[cy] != "" {
			axisCh = "┤"
		}
		b.WriteString(st.Dim.Render(strings.Repeat(" ", g.lw-len(rowLabel[cy])) + rowLabel[cy] + axisCh))
		cur := cellStyle{color: -2}
		pre, post := "", ""
		for cx := range g.pw {
			i := cy*g.pw + cx
			cs := cellStyle{color: int(cv.color[i]), warm: cx <= g.warmEnd, cursor: cx == g.curCell}
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
	return out
}

// xAxisRows appends the x axis (┬ at each tick, ┄ over the warm-up
// window, ┼ at the cursor) and its step labels.
func xAxisRows(out []string, st *Styles, g *chartGeom) []string {
	spec := g.spec
	xt := stepTicks(spec.lo, spec.hi, max(g.pw/12, 2))
	tickAt := make(map[int]int, len(xt))
	for _, t := range xt {
		tickAt[g.cellOf(t)] = t
	}
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", g.lw) + "└")
	for cx := range g.pw {
		_, tick := tickAt[cx]
		switch {
		case cx == g.curCell:
			b.WriteString("┼")
		case tick:
			b.WriteString("┬")
		case cx <= g.warmEnd:
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
		x := g.lw + 1 + g.cellOf(t) - len(l)/2
		x = min(max(x, next), spec.w-len(l))
		if x < next || x < 0 {
			continue
		}
		copy(labels[x:], l)
		next = x + len(l) + 2
	}
	return append(out, st.Dim.Render(strings.TrimRight(string(labels), " ")))
}
