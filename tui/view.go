package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"
	"github.com/normtop/normtop/probes"
)

// View returns the cached screen, redrawing it only when something shown
// changed (a key, a resize, or new frames at the coalescing tick).
func (m *Model) View() tea.View {
	if m.dirty || m.cache == "" {
		m.cache = m.render()
		m.dirty = false
	}
	v := tea.NewView(m.cache)
	v.AltScreen = true
	v.WindowTitle = "normtop"
	return v
}

// render draws the whole screen: header, body, help bar, exactly w×h.
func (m *Model) render() string {
	if m.w == 0 || m.h == 0 {
		return "normtop: waiting for the terminal size…"
	}
	if m.w < minW || m.h < minH {
		return fmt.Sprintf("terminal too small (need %d×%d, have %d×%d)", minW, minH, m.w, m.h)
	}
	const headerH, footerH = 3, 1
	bodyH := m.h - headerH - footerH
	var b strings.Builder
	b.Grow(m.w * m.h * 4)
	m.writeHeader(&b)
	var body []string
	if m.st.Help {
		body = strings.Split(m.help.FullHelpView(m.keys.FullHelp()), "\n")
		body = append([]string{m.styles.Heading.Render("Keys (any key closes)"), ""}, body...)
		body = append(body, "", m.styles.Heading.Render(m.st.Screen.Title()))
		body = append(body, wrapWords(screenGuide[m.st.Screen], m.w)...)
	} else {
		switch m.st.Screen {
		case ScreenOverview:
			body = m.overview(m.w, bodyH)
		case ScreenLayers:
			body = m.layersView(m.w, bodyH)
		case ScreenCompare:
			body = m.compare(m.w, bodyH)
		case ScreenSpectrum:
			body = m.spectrum(m.w, bodyH)
		case ScreenGradients:
			body = m.gradients(m.w, bodyH)
		case ScreenEvents:
			body = m.eventsView(m.w, bodyH)
		}
	}
	for i := range bodyH {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		b.WriteString(fit(line, m.w))
		b.WriteByte('\n')
	}
	b.WriteString(fit(m.help.ShortHelpView(m.keys.ShortHelp()), m.w))
	return b.String()
}

func (m *Model) writeHeader(b *strings.Builder) {
	s := m.styles
	meta := &m.data.meta
	mode := "live"
	switch {
	case m.rd != nil && m.following && m.srcEnded:
		mode = "following (ended)"
	case m.rd != nil && m.following:
		mode = "following"
	case m.rd != nil && m.catchUp:
		mode = "catching up"
	case m.rd != nil:
		mode = fmt.Sprintf("replay ×%g", m.st.Speed)
	case m.ended:
		mode = "live (ended)"
	}
	if m.st.Paused {
		mode += " · paused"
	}
	if m.seeking >= 0 && !m.catchUp {
		mode += fmt.Sprintf(" · seeking → %d", m.seeking)
	}
	run := meta.RunID
	if run == "" {
		run = "(unnamed run)"
	}
	left := s.Title.Render("normtop") + " " + s.Header.Render(fmt.Sprintf("%s · %s · %s", run, meta.Model, meta.Data))
	right := s.ActiveTab.Render(" " + mode + " ")
	b.WriteString(joinLR(left, right, m.w))
	b.WriteByte('\n')

	stepStr := fmt.Sprintf("step %d", m.data.step)
	if m.data.total > 0 {
		stepStr += fmt.Sprintf("/%d", m.data.total)
	}
	facts := fmt.Sprintf("%s · epoch %.2f · elapsed %s", stepStr, m.data.epoch, fmtDuration(m.data.elapsed))
	if m.err != nil {
		facts += " · " + s.Bad.Render("read error: "+m.err.Error())
	}
	if d := m.feedDropped(); d > 0 {
		// The live feed is lossy by design (the trainer never waits); say
		// how many plain frames were coalesced away. The run file has them.
		facts += fmt.Sprintf(" · %d frames coalesced", d)
	}
	path := m.opt.RunPath
	if path == "" {
		path = "(not recorded)"
	}
	path = shortenPath(path, max(m.w/2, m.w-ansi.StringWidth(facts)-1))
	b.WriteString(joinLR(s.Header.Render(facts), s.Dim.Render(path), m.w))
	b.WriteByte('\n')

	var tabs strings.Builder
	for i := range numScreens {
		t := fmt.Sprintf(" %d %s ", i+1, Screen(i).Title())
		if Screen(i) == m.st.Screen {
			tabs.WriteString(s.ActiveTab.Render(t))
		} else {
			tabs.WriteString(s.Tab.Render(t))
		}
	}
	flags := ""
	if m.st.Log {
		flags += " log"
	}
	if m.st.Smooth {
		flags += " ema"
	}
	b.WriteString(joinLR(tabs.String(), s.Dim.Render(strings.TrimSpace(flags)), m.w))
	b.WriteByte('\n')
}

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

// withHint right-aligns hint on line when both fit in w, else drops it.
func withHint(line, hint string, w int) string {
	if hint == "" || ansi.StringWidth(line)+2+ansi.StringWidth(hint) > w {
		return line
	}
	return joinLR(line, hint, w)
}

// fit truncates or pads a styled line to exactly w cells.
func fit(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-sw)
}

// joinLR puts left and right on one line of width w, truncating left first.
func joinLR(left, right string, w int) string {
	rw := ansi.StringWidth(right)
	if rw >= w {
		return fit(right, w)
	}
	return fit(left, w-rw-1) + " " + right
}

// hcat joins blocks of lines side by side, each block padded to its width.
func hcat(blocks [][]string, widths []int, h int) []string {
	out := make([]string, h)
	var b strings.Builder
	for i := range h {
		b.Reset()
		for j, blk := range blocks {
			line := ""
			if i < len(blk) {
				line = blk[i]
			}
			b.WriteString(fit(line, widths[j]))
		}
		out[i] = b.String()
	}
	return out
}

func fmtDuration(d time.Duration) string {
	d = d.Round(time.Second)
	h := int(d / time.Hour)
	mnt := int(d/time.Minute) % 60
	sec := int(d/time.Second) % 60
	return fmt.Sprintf("%02d:%02d:%02d", h, mnt, sec)
}

// fmtVal prints a probe value in at most 8 cells.
func fmtVal(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case v == 0:
		return "0"
	}
	a := math.Abs(v)
	if a >= 1e3 && a < 1e5 {
		return fmt.Sprintf("%.0f", v)
	}
	if a >= 1e-3 && a < 1e3 {
		return trimFloat(fmt.Sprintf("%.4g", v))
	}
	return fmt.Sprintf("%.2e", v)
}

func trimFloat(s string) string {
	if strings.ContainsAny(s, "e") || !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// seriesOf turns a History into at most w chart points (bucket last values),
// optionally EMA-smoothed and log10-scaled (non-positive values become gaps).
func seriesOf(h *probes.History, w int, smooth, logScale bool) []float64 {
	if h == nil {
		return nil
	}
	return valuesOf(h.View(w), smooth, logScale)
}

// alignedOf resamples a History onto w columns spanning steps [lo, hi], so
// that series of different density (train loss every step, val loss every
// eval, a variant that diverged early) share one x axis. Each column holds
// the latest value at or before its last step (NaN before the first point).
// Cost: one View(w) and O(w).
func alignedOf(h *probes.History, w, lo, hi int, smooth, logScale bool) []float64 {
	if h == nil || w <= 0 {
		return nil
	}
	bs := h.View(w)
	vals := valuesOf(bs, smooth, logScale)
	if hi < lo {
		hi = lo
	}
	out := make([]float64, w)
	span := float64(hi - lo + 1)
	j := -1
	for i := range out {
		end := lo + int(math.Ceil(float64(i+1)*span/float64(w))) - 1
		for j+1 < len(bs) && bs[j+1].LastStep <= end {
			j++
		}
		if j < 0 {
			out[i] = math.NaN()
		} else {
			out[i] = vals[j]
		}
	}
	return out
}

func valuesOf(bs []probes.Bucket, smooth, logScale bool) []float64 {
	out := make([]float64, len(bs))
	ema, have := 0.0, false
	for i, bk := range bs {
		v := bk.Last
		if smooth {
			if !have {
				ema, have = v, true
			} else {
				ema += 0.2 * (v - ema)
			}
			v = ema
		}
		if logScale {
			if v > 0 {
				v = math.Log10(v)
			} else {
				v = math.NaN()
			}
		}
		out[i] = v
	}
	return out
}

const sparkRunes = "▁▂▃▄▅▆▇█"

// sparkline draws w cells from a History (min–max scaled over what is shown).
func sparkline(h *probes.History, w int, smooth, logScale bool) string {
	return sparkValues(seriesOf(h, w, smooth, logScale), w)
}

func sparkValues(vals []float64, w int) string {
	if len(vals) == 0 {
		return strings.Repeat(" ", w)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	runes := []rune(sparkRunes)
	var b strings.Builder
	for _, v := range vals {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0) || lo > hi:
			b.WriteByte(' ')
		case hi == lo:
			b.WriteRune(runes[len(runes)/2])
		default:
			i := int((v - lo) / (hi - lo) * float64(len(runes)-1))
			b.WriteRune(runes[clamp(i, 0, len(runes)-1)])
		}
	}
	return b.String() + strings.Repeat(" ", w-len(vals))
}

// aligned is alignedOf over the run's steps so far with the current
// smoothing and scale. The chart's data width is w minus the axis labels,
// so the series is sampled at that width.
func (m *Model) aligned(h *probes.History, w int) []float64 {
	return alignedOf(h, max(w-chartLabelW-1, 1), 1, max(m.data.step, 1), m.st.Smooth, m.st.Log)
}

const chartLabelW = 8 // formatter width 7 plus asciigraph's leading space

// variantGlyphs tell variants apart without colour (NO_COLOR): series i of
// a multi-variant chart is drawn with glyph i ("" = box drawing).
var variantGlyphs = []string{"", "•", "+", "x", "*", "o", "#", "="}

// glyph is the line glyph of variant i: box drawing when colours tell the
// variants apart, a distinct character otherwise.
func (m *Model) glyph(i int) string {
	if !m.styles.NoColor {
		return ""
	}
	return variantGlyphs[i%len(variantGlyphs)]
}

// legendMark is the legend's sample of a glyph.
func legendMark(g string) string {
	if g == "" {
		return "─"
	}
	return g
}

// chart draws series overlaid with asciigraph into exactly h lines of width
// w (labels included). colors[i] is series i's palette index, glyphs[i] its
// line character ("" = box drawing). Series with fewer than two finite
// points are skipped.
func (m *Model) chart(series [][]float64, colors []int, glyphs []string, w, h int, logScale bool) []string {
	dataW := w - chartLabelW - 1
	if dataW < 4 || h < 2 {
		return nil
	}
	var data [][]float64
	var cols []asciigraph.AnsiColor
	var chars []asciigraph.CharSet
	anyGlyph := false
	palette := m.styles.seriesColors(len(m.data.variants) + 2)
	for i, s := range series {
		if finite(s) < 2 {
			continue
		}
		clean := make([]float64, len(s))
		for j, v := range s {
			if math.IsInf(v, 0) {
				v = math.NaN()
			}
			clean[j] = v
		}
		data = append(data, clean)
		if palette != nil && i < len(colors) {
			cols = append(cols, palette[colors[i]%len(palette)])
		}
		cs := asciigraph.DefaultCharSet
		if i < len(glyphs) && glyphs[i] != "" {
			cs = asciigraph.CreateCharSet(glyphs[i])
			anyGlyph = true
		}
		chars = append(chars, cs)
	}
	if len(data) == 0 {
		out := make([]string, h)
		out[h/2] = m.styles.Dim.Render(center("no data yet", w))
		return out
	}
	opts := []asciigraph.Option{
		asciigraph.Width(dataW), asciigraph.Height(h - 1), asciigraph.Offset(2),
		asciigraph.YAxisValueFormatter(func(v float64) string {
			if logScale {
				return fmt.Sprintf("%7s", "1e"+trimFloat(fmt.Sprintf("%.1f", v)))
			}
			return fmt.Sprintf("%7s", fmtVal(v))
		}),
	}
	if cols != nil {
		opts = append(opts, asciigraph.SeriesColors(cols...))
	}
	if anyGlyph {
		opts = append(opts, asciigraph.SeriesChars(chars...))
	}
	lines := strings.Split(asciigraph.PlotMany(data, opts...), "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	return lines
}

func finite(s []float64) int {
	n := 0
	for _, v := range s {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			n++
		}
	}
	return n
}

func center(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw >= w {
		return s
	}
	return strings.Repeat(" ", (w-sw)/2) + s
}

// window returns the first index of a run of n visible items out of total
// that keeps sel visible (paging in steps of n).
func window(sel, n, total int) int {
	if n >= total || n <= 0 {
		return 0
	}
	return min((sel/n)*n, total-n)
}

// layerRows renders the visible window of rowsH layer rows around the
// selected layer sel: the layer's name (highlighted when selected) followed
// by cell(variant, layer) for each variant in [first, last). The Compare and
// Gradients screens share this table shape.
func layerRows(s *Styles, layers []string, sel, rowsH, nameW, first, last int, cell func(v, li int) string) []string {
	var out []string
	lfirst := window(sel, rowsH, len(layers))
	for li := lfirst; li < min(lfirst+rowsH, len(layers)); li++ {
		var rb strings.Builder
		name := fmt.Sprintf("%-*s", nameW, truncName(layers[li], nameW-1))
		if li == sel {
			rb.WriteString(s.Selected.Render(name))
		} else {
			rb.WriteString(name)
		}
		for i := first; i < last; i++ {
			rb.WriteString(cell(i, li))
		}
		out = append(out, rb.String())
	}
	return out
}
