package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/normtop/normtop/probes"
)

// The input histogram panel of the Layers screen: where a run carries the
// layers' input histograms (probes.Frame.Hists: python/normtop's
// watch(histogram=...)), the selected layer's shows beside the probe chart,
// the latest as bars and how it moved over the run as a strip of steps ×
// bins. The bins are in units of the input's own σ (probes.HistLayout), so
// a strip that widens is a shape that grows tails, whatever the scale did
// (the scale is in_std's chart).

// histKeep bounds the histograms kept per variant × layer: the strip shows
// the whole run at a spacing that doubles each time the bound is passed.
const histKeep = 64

// heatShades are the strip's levels: empty, then four of log count.
var heatShades = []rune(" ░▒▓█")

// barEighths are a bar's top cell by eighths.
var barEighths = []rune(" ▁▂▃▄▅▆▇█")

// keptHist is one histogram and the step it was taken at.
type keptHist struct {
	step int
	h    probes.Histogram
}

// histTrack is what the dashboard keeps of one variant × layer's
// histograms: the latest, and a thinned record of the run (every
// stride-th histogram since the start, at most histKeep+1 of them).
type histTrack struct {
	last   *keptHist
	kept   []keptHist
	seen   int
	stride int
}

// add records h of step.
func (t *histTrack) add(step int, h probes.Histogram) {
	h.Counts = append([]int(nil), h.Counts...) // the Frame's slice is the source's
	k := keptHist{step: step, h: h}
	t.last = &k
	if t.stride == 0 {
		t.stride = 1
	}
	if t.seen%t.stride == 0 {
		t.kept = append(t.kept, k)
		if len(t.kept) > histKeep {
			n := 0
			for i := 0; i < len(t.kept); i += 2 {
				t.kept[n] = t.kept[i]
				n++
			}
			clear(t.kept[n:])
			t.kept = t.kept[:n]
			t.stride *= 2
		}
	}
	t.seen++
}

// inputHists holds every variant × layer's histTrack, nil tracks for a
// run without histograms.
type inputHists struct {
	layout *probes.HistLayout
	tracks [][]histTrack // [variant][layer]
}

func newInputHists(m probes.RunMeta) *inputHists {
	s := &inputHists{layout: m.Histogram}
	if m.Histogram != nil {
		s.tracks = make([][]histTrack, len(m.Variants))
		for v := range s.tracks {
			s.tracks[v] = make([]histTrack, len(m.Layers))
		}
	}
	return s
}

// add takes f's histograms in; those that do not fit the run are dropped.
func (s *inputHists) add(f *probes.Frame) {
	if s.tracks == nil || f.Variant < 0 || f.Variant >= len(s.tracks) {
		return
	}
	for _, h := range f.Hists {
		if h.Layer >= 0 && h.Layer < len(s.tracks[f.Variant]) && len(h.Counts) == s.layout.Bins {
			s.tracks[f.Variant][h.Layer].add(f.Step, h)
		}
	}
}

// track is variant v's layer l's histograms, nil when it has none.
func (s *inputHists) track(v, l int) *histTrack {
	if s == nil || v < 0 || v >= len(s.tracks) || l < 0 || l >= len(s.tracks[v]) || s.tracks[v][l].last == nil {
		return nil
	}
	return &s.tracks[v][l]
}

// histColumns is how the panel lays B bins over at most w cells between
// its under and over columns: merge bins per column (the last may hold
// fewer), each column cells wide.
func histColumns(bins, w int) (merge, cols, cells int) {
	merge = (bins + w - 1) / w
	cols = (bins + merge - 1) / merge
	cells = max(1, w/cols)
	return merge, cols, cells
}

// inputHistWidth is the panel's width beside a chart on a w-wide screen
// for variant v's layer l: 0 when there is no histogram to show or no
// room for one.
func (m *common) inputHistWidth(w, v, l int) int {
	t := m.data.inputs.track(v, l)
	if t == nil || w < 60 {
		return 0
	}
	_, cols, cells := histColumns(m.data.inputs.layout.Bins, w*2/5-4)
	return max(cols*cells+4, 29) + 1 // and the space before it
}

// besideInputHist puts the panel (pw wide) to the right of the chart lines
// (chartW wide each); the lines unchanged when pw is 0.
func (m *common) besideInputHist(lines []string, chartW, v, l, pw int) []string {
	if pw == 0 {
		return lines
	}
	panel := m.inputHistPanel(v, l, pw-1, len(lines))
	for i := range lines {
		lines[i] = fit(lines[i], chartW) + " " + panel[i]
	}
	return lines
}

// inputHistPanel draws variant v's layer l's histograms in w × h cells:
// the latest histogram's bars (log count, so that a bin of a few entries
// in the tails shows beside one of millions; under and over at the sides),
// its σ axis, the tail counts, and the strip of the kept histograms
// (oldest at the top). Each line is exactly w cells.
func (m *common) inputHistPanel(v, l, w, h int) []string {
	s := m.styles
	t := m.data.inputs.track(v, l)
	lay := m.data.inputs.layout
	out := make([]string, 0, h)
	if t == nil || h < 6 {
		for len(out) < h {
			out = append(out, strings.Repeat(" ", w))
		}
		return out
	}
	merge, cols, cells := histColumns(lay.Bins, w-4)
	last := &t.last.h
	mu := "μ, σ —" // no finite entry
	if !math.IsNaN(last.Mean) {
		mu = "μ " + probes.FormatValue(last.Mean) + " σ " + probes.FormatValue(last.Std)
	}
	out = append(out, fit(s.Heading.Render("input")+s.Dim.Render(fmt.Sprintf(" @%d  %s", t.last.step, mu)), w))
	paint := s.seriesStyle(v)
	// Rows: title, bars, axis, tails, strip title, strip.
	strip := min(len(t.kept), max(1, (h-4)*2/5))
	bars := h - 4 - strip
	if bars < 2 {
		strip = max(0, strip-(2-bars))
		bars = h - 4 - strip
	}
	colsOf := func(hg *probes.Histogram) []int {
		c := make([]int, 0, cols+2)
		c = append(c, hg.Under)
		for k := 0; k < lay.Bins; k += merge {
			sum := 0
			for _, x := range hg.Counts[k:min(k+merge, lay.Bins)] {
				sum += x
			}
			c = append(c, sum)
		}
		return append(c, hg.Over)
	}
	cur := colsOf(last)
	top := 0
	for _, c := range cur {
		top = max(top, c)
	}
	for r := bars - 1; r >= 0; r-- {
		var b strings.Builder
		for i, c := range cur {
			b.WriteString(histGap(i, len(cur)))
			b.WriteString(strings.Repeat(string(barCell(c, top, r, bars)), histCells(i, len(cur), cells)))
		}
		out = append(out, fit(paint.Render(b.String()), w))
	}
	out = append(out, fit(s.Dim.Render(histAxis(lay, cols*cells)), w))
	g := probes.GroupThousands
	tail := fmt.Sprintf("under %s · over %s · NaN %s · of %s", g(last.Under), g(last.Over), g(last.NaN), g(last.Total()))
	if cellWidth(tail) > w {
		tail = fmt.Sprintf("<%s >%s NaN %s of %s", g(last.Under), g(last.Over), g(last.NaN), g(last.Total()))
	}
	if last.NaN > 0 {
		out = append(out, fit(s.Outlier.Render(tail), w))
	} else {
		out = append(out, fit(s.Dim.Render(tail), w))
	}
	if strip > 0 {
		rows := pickRows(len(t.kept), strip)
		out = append(out, fit(s.Dim.Render(fmt.Sprintf("steps %d–%d ↓ (log count)", t.kept[rows[0]].step, t.kept[rows[len(rows)-1]].step)), w))
		for _, k := range rows {
			hc := colsOf(&t.kept[k].h)
			top := 0
			for _, c := range hc {
				top = max(top, c)
			}
			var b strings.Builder
			for i, c := range hc {
				b.WriteString(histGap(i, len(hc)))
				b.WriteString(strings.Repeat(string(heatCell(c, top)), histCells(i, len(hc), cells)))
			}
			out = append(out, fit(paint.Render(b.String()), w))
		}
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", w))
	}
	return out[:h]
}

// histGap is the space that sets the under and over columns apart.
func histGap(i, n int) string {
	if i == 1 || i == n-1 {
		return " "
	}
	return ""
}

// histCells is column i's width: the under and over columns are one cell.
func histCells(i, n, cells int) int {
	if i == 0 || i == n-1 {
		return 1
	}
	return cells
}

// logShare is c's height against top on a log scale (log1p): a bin of one
// entry among millions still shows.
func logShare(c, top int) float64 {
	if c <= 0 || top <= 0 {
		return 0
	}
	return math.Log1p(float64(c)) / math.Log1p(float64(top))
}

// barCell is the cell of row r (0 at the bottom) of a bar of count c, the
// tallest top, bars rows high.
func barCell(c, top, r, rows int) rune {
	e := int(math.Ceil(logShare(c, top) * float64(rows*8)))
	e -= r * 8
	return barEighths[clamp(e, 0, 8)]
}

// heatCell is c's shade against its histogram's top.
func heatCell(c, top int) rune {
	if c <= 0 {
		return heatShades[0]
	}
	return heatShades[clamp(int(math.Ceil(logShare(c, top)*4)), 1, 4)]
}

// histAxis labels the bins' ends and 0 under n cells of bins, after the
// under column and its gap: "<  -6σ      0      6σ  >".
func histAxis(l *probes.HistLayout, n int) string {
	lo, hi := fmt.Sprintf("%gσ", l.Lo), fmt.Sprintf("%gσ", l.Hi)
	row := []rune(strings.Repeat(" ", n))
	put := func(at int, s string) {
		r := []rune(s)
		at = clamp(at, 0, max(0, n-len(r)))
		copy(row[at:], r)
	}
	if l.Lo < 0 && l.Hi > 0 {
		put(int(math.Round(-l.Lo/(l.Hi-l.Lo)*float64(n))), "0")
	}
	put(0, lo)
	put(n-len([]rune(hi)), hi)
	return "< " + string(row) + " >"
}

// pickRows is n evenly spaced indices of k items, first and last included.
func pickRows(k, n int) []int {
	if n >= k {
		out := make([]int, k)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, n)
	for i := range out {
		if n == 1 {
			out[i] = k - 1
			continue
		}
		out[i] = i * (k - 1) / (n - 1)
	}
	return out
}
