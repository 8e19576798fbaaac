package tui

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
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
	v.MouseMode = tea.MouseModeCellMotion
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
	const footerH = 1
	bodyH := m.h - headerH - footerH
	m.zones = m.zones[:0]
	var b strings.Builder
	b.Grow(m.w * m.h * 4)
	m.writeHeader(&b)
	var body []string
	if m.st.Help {
		body = m.fullHelpLines()
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
		case ScreenSummary:
			body = m.summary(m.w, bodyH)
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
	if m.st.Confirm {
		b.WriteString(fit(m.styles.Bad.Render("stop the live run and quit? q or y: yes · any other key: no"), m.w))
	} else {
		b.WriteString(fit(m.helpBar(), m.w))
	}
	return b.String()
}

// modeWords is the header's badge: the driver's state in words, then
// whether the dashboard is paused and where a seek is going.
func (m *Model) modeWords() string {
	var mode, seek string
	if r := m.replay; r != nil {
		switch r.State() {
		case replayFollowing, replayFollowBehind:
			mode = "following"
			if r.Ended() {
				mode += " (ended)"
			}
		case replayCatchingUp:
			mode = "catching up"
		case replaySeeking:
			seek = fmt.Sprintf(" · seeking → %d", r.target)
			fallthrough
		default:
			mode = fmt.Sprintf("replay ×%g", m.st.Speed)
		}
	} else {
		mode = "live"
		if m.live.Ended() {
			mode += " (ended)"
		}
	}
	if m.st.Paused {
		mode += " · paused"
	}
	return mode + seek
}

// feedDropped is the live feed's dropped-frame count (0 in replay).
func (m *Model) feedDropped() int {
	if m.live == nil {
		return 0
	}
	return m.live.dropped()
}

func (m *Model) writeHeader(b *strings.Builder) {
	s := m.styles
	meta := &m.data.meta
	mode := m.modeWords()
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
	if m.replay != nil && m.replay.err != nil {
		facts += " · " + s.Bad.Render("read error: "+m.replay.err.Error())
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
	// The facts come first; the path gets what is left, its end (the file
	// name) kept, and goes when too little is left to mean anything.
	room := m.w - ansi.StringWidth(facts) - 1
	if room < 12 {
		b.WriteString(fit(s.Header.Render(facts), m.w))
	} else {
		b.WriteString(joinLR(s.Header.Render(facts), s.Dim.Render(shortenPath(path, room)), m.w))
	}
	b.WriteByte('\n')

	var tabs strings.Builder
	x := 0
	for i := range numScreens {
		t := fmt.Sprintf(" %d %s ", i+1, Screen(i).Title())
		tw := ansi.StringWidth(t)
		m.zones = append(m.zones, zone{kind: zoneTab, x0: x, x1: x + tw, y0: 2, y1: 3, val: int(i)})
		x += tw
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

// fullHelpLines lays the full help's columns side by side, in as many
// bands as the width needs: no key is cut off at 80 columns.
func (m *Model) fullHelpLines() []string {
	cols := m.keys.FullHelp()
	var out []string
	for len(cols) > 0 {
		n := len(cols)
		for n > 1 && maxWidth(m.help.FullHelpView(cols[:n])) > m.w {
			n--
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, strings.Split(m.help.FullHelpView(cols[:n]), "\n")...)
		cols = cols[n:]
	}
	return out
}

func maxWidth(block string) int {
	w := 0
	for _, l := range strings.Split(block, "\n") {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}

// helpBar is the one-line help of the mode and screen; "? help" and
// "q quit" always show at its end, the other keys give way from the right.
func (m *Model) helpBar() string {
	keys := m.keys.shortHelp(m.st.Screen)
	tail := m.help.ShortHelpView(keys[len(keys)-2:])
	room := max(m.w-ansi.StringWidth(tail)-3, 10)
	h := m.help
	h.SetWidth(room)
	head := h.ShortHelpView(keys[:len(keys)-2])
	if ansi.StringWidth(head) > room {
		head = ansi.Truncate(head, room-1, "…")
	}
	return head + m.styles.Help.ShortSeparator.Render(" • ") + tail
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

// headerH is the header's height: the screen body starts on this row.
const headerH = 3

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

// fmtVal prints a probe value in at most 8 cells, 3 significant digits.
func fmtVal(v float64) string { return fmt3(v) }

// valuesOf is the last value of each bucket, optionally EMA-smoothed and
// log10-scaled (non-positive values become gaps): sparklines.
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
	if h == nil {
		return sparkValues(nil, w)
	}
	return sparkValues(valuesOf(h.View(w), smooth, logScale), w)
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

// variantGlyphs tell variants apart without colour (NO_COLOR): series i of
// a multi-variant chart is drawn with glyph i ("" = box drawing).
var variantGlyphs = []string{"*", "+", "x", "o", "#", "=", "%", "@"}

// glyph is the line glyph of variant i: box drawing when colours tell the
// variants apart, a distinct character otherwise.
func (m *Model) glyph(i int) string {
	if !m.styles.NoColor {
		return ""
	}
	return variantGlyphs[i%len(variantGlyphs)]
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

// gridHead finishes the heading line of a layers × variants grid drawn at
// body line `line`: each variant's column is a click zone, and what is
// paged (variants, layers) is said on the right, the names giving way.
func (m *Model) gridHead(head string, line, nameW, colW, first, last, rowsH, w int) string {
	y := headerH + line
	for i := first; i < last; i++ {
		x := nameW + (i-first)*colW
		m.zones = append(m.zones, zone{kind: zoneVariant, x0: x, x1: x + colW, y0: y, y1: y + 1, val: i})
	}
	nl := len(m.data.meta.Layers)
	lf := window(clamp(m.st.Layer, 0, max(nl-1, 0)), rowsH, nl)
	var hints []string
	if h := pageHint("layers", lf, min(lf+rowsH, nl), nl, "↑/↓"); h != "" {
		hints = append(hints, h)
	}
	if h := pageHint("variants", first, last, len(m.data.variants), "←/→"); h != "" {
		hints = append(hints, h)
	}
	if len(hints) == 0 {
		return head
	}
	return joinLR(head, m.styles.Dim.Render(strings.Join(hints, " · ")), w)
}

// layerZones records the mouse zones of the layer rows that layerRows (or
// the layers screen) draws from body line `line`.
func (m *Model) layerZones(line, sel, rowsH, nameW int) {
	n := len(m.data.meta.Layers)
	first := window(sel, rowsH, n)
	for li := first; li < min(first+rowsH, n); li++ {
		y := headerH + line + li - first
		m.zones = append(m.zones, zone{kind: zoneLayer, x0: 0, x1: nameW, y0: y, y1: y + 1, val: li})
	}
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
