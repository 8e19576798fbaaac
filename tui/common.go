package tui

// common is what every screen reads and the root keeps current: the
// run's data and source, the view state, the styles and the size, and the
// layout of the frame being laid out (its scale and mouse zones).
type common struct {
	st     State
	filter textFilter // the text filter (/) the Events and Grid screens share
	data   *store
	styles *Styles
	w, h   int
	feed   driver // the run's source (ended? crashed?): live or replay

	lay frameLayout // the frame's layout: the screens fill it in, everything else reads it
}

// glyph is the line glyph of variant i: box drawing when colours tell the
// variants apart, a distinct character otherwise.
func (m *common) glyph(i int) string {
	if !m.styles.NoColor {
		return ""
	}
	return variantGlyphs[i%len(variantGlyphs)]
}

// valGlyph is variant i's validation marker without colour: its number
// (1-9, then letters), so that a val point is told from the train line's
// glyph and from the other variants' points; "" in colour (a • then).
func (m *common) valGlyph(i int) string {
	if !m.styles.NoColor {
		return ""
	}
	const marks = "123456789abcdefghijklmnopqrstuvwxyz"
	return string(marks[i%len(marks)])
}
