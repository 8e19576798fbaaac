package tui

// common is what every screen reads and the root keeps current: the
// run's data and source, the view state, the styles and the size, and the
// mouse zones the screen being drawn records.
type common struct {
	st     State
	data   *store
	styles *Styles
	w, h   int
	feed   driver // the run's source (ended? crashed?): live or replay

	// logShown: the chart being drawn is on a log axis (useLog); the
	// header and l read the last one drawn.
	logShown bool
	zones    []zone // clickable regions of the cached screen
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
