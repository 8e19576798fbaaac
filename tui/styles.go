package tui

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
	"github.com/guptarohit/asciigraph"
)

// Styles holds every style the dashboard uses. It is built once (and again
// only when the terminal reports its background colour) and passed by
// pointer to the screens.
type Styles struct {
	NoColor bool

	Title     lipgloss.Style // program name in the header
	Header    lipgloss.Style // header facts
	Dim       lipgloss.Style // secondary text, axis captions
	Tab       lipgloss.Style
	ActiveTab lipgloss.Style
	Selected  lipgloss.Style // selected row / cell
	Outlier   lipgloss.Style // outlier cells and alert markers
	Good      lipgloss.Style // status running / done
	Bad       lipgloss.Style // diverged, alerts
	Warn      lipgloss.Style
	Heading   lipgloss.Style // column headings
	Help      help.Styles

	// Series are the variants' colours (256-colour indices, named by
	// asciigraph's palette, which headless plots share) and their lipgloss
	// styles for lines, legends and rows. Empty when NoColor.
	Series      []asciigraph.AnsiColor
	SeriesStyle []lipgloss.Style

	// Warm tints the chart cells of the running statistics' warm-up window;
	// Cursor the cursor column. Plain under NO_COLOR (the axis marks both).
	Warm, Cursor lipgloss.Style
	// Faint draws a chart's context (raw series behind smoothed lines,
	// bands over seeds): one quiet grey for all, so that the lines keep
	// the colours.
	Faint lipgloss.Style

	sgr map[cellStyle][2]string // escape sequences per plot-cell style
}

// NewStyles builds the styles for a dark or light background. With noColor
// every distinction is made with bold, underline and reverse video only, so
// the dashboard stays readable under NO_COLOR.
func NewStyles(dark, noColor bool) *Styles {
	s := &Styles{NoColor: noColor}
	base := lipgloss.NewStyle()
	if noColor {
		s.Title = base.Bold(true)
		s.Header = base
		s.Dim = base
		s.Tab = base
		s.ActiveTab = base.Reverse(true).Bold(true)
		s.Selected = base.Reverse(true)
		s.Outlier = base.Bold(true).Underline(true)
		s.Good = base
		s.Bad = base.Bold(true)
		s.Warn = base.Underline(true)
		s.Heading = base.Bold(true)
		s.Help = help.Styles{
			ShortKey: base.Bold(true), ShortDesc: base, ShortSeparator: base,
			FullKey: base.Bold(true), FullDesc: base, FullSeparator: base,
			Ellipsis: base,
		}
		s.SeriesStyle = []lipgloss.Style{base}
		s.Warm, s.Cursor, s.Faint = base, base, base
		return s
	}
	ld := lipgloss.LightDark(dark)
	c := func(light, darkc string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(darkc)) }
	accent := c("#5A3FC0", "#B69CFF")
	dim := c("#6B6B6B", "#8A8A8A")
	s.Title = base.Bold(true).Foreground(accent)
	s.Header = base.Foreground(c("#202020", "#E0E0E0"))
	s.Dim = base.Foreground(dim)
	s.Tab = base.Foreground(dim)
	s.ActiveTab = base.Bold(true).Foreground(c("#FFFFFF", "#1A1A1A")).Background(accent)
	s.Selected = base.Bold(true).Background(c("#E4DDFB", "#3A3160"))
	s.Outlier = base.Bold(true).Foreground(c("#B00020", "#FF6B6B"))
	s.Good = base.Foreground(c("#1B7F3B", "#7CDB8A"))
	s.Bad = base.Bold(true).Foreground(c("#B00020", "#FF6B6B"))
	s.Warn = base.Foreground(c("#9A6200", "#F2C14E"))
	s.Heading = base.Bold(true).Foreground(c("#303030", "#D0D0D0"))
	s.Help = help.DefaultStyles(dark)
	// Colours that stay distinguishable on both backgrounds.
	if dark {
		s.Series = []asciigraph.AnsiColor{asciigraph.SkyBlue, asciigraph.Orange, asciigraph.LightGreen,
			asciigraph.HotPink, asciigraph.Gold, asciigraph.MediumPurple, asciigraph.Turquoise, asciigraph.Salmon}
	} else {
		s.Series = []asciigraph.AnsiColor{asciigraph.Blue, asciigraph.DarkOrange, asciigraph.Green,
			asciigraph.DeepPink, asciigraph.DarkGoldenrod, asciigraph.Purple, asciigraph.Teal, asciigraph.Brown}
	}
	for _, a := range s.Series {
		s.SeriesStyle = append(s.SeriesStyle, base.Foreground(lipgloss.ANSIColor(uint8(a))))
	}
	s.Warm = base.Background(c("#EDEDED", "#262626"))
	s.Cursor = base.Foreground(dim)
	s.Faint = base.Foreground(c("#CFCFCF", "#4A4A4A"))
	return s
}

// cellSGR returns the escape sequences that open and close a plot cell of
// style cs. They are cut once from a rendered sentinel and cached, so a
// 240-column chart costs map look-ups, not lipgloss renders, per cell.
func (s *Styles) cellSGR(cs cellStyle) (pre, post string) {
	if s.NoColor {
		return "", ""
	}
	if p, ok := s.sgr[cs]; ok {
		return p[0], p[1]
	}
	st := s.Cursor
	switch {
	case cs.faint:
		st = s.Faint
	case cs.color >= 0:
		st = s.seriesStyle(cs.color)
	}
	if cs.warm {
		st = st.Background(s.Warm.GetBackground())
	}
	r := st.Render("\x00")
	pre, post, _ = strings.Cut(r, "\x00")
	if s.sgr == nil {
		s.sgr = make(map[cellStyle][2]string)
	}
	s.sgr[cs] = [2]string{pre, post}
	return pre, post
}

func (s *Styles) seriesStyle(i int) lipgloss.Style {
	return s.SeriesStyle[i%len(s.SeriesStyle)]
}

// variantGlyphs tell variants apart without colour (NO_COLOR): series i of
// a multi-variant chart is drawn with glyph i ("" = box drawing).
var variantGlyphs = []string{"*", "+", "x", "o", "#", "=", "%", "@"}
