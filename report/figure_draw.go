package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Drawing a Figure with gonum.org/v1/plot: one plot per panel, aligned in
// a grid on one canvas, written as SVG, PNG or PDF.

// palette is Okabe and Ito's colour-blind-safe set (yellow darkened to
// read on white), one colour per variant group.
var palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0x9E, 0x8A, 0x00, 0xff}, // dark yellow
}

func colorAt(i int, alpha uint8) color.NRGBA {
	c := palette[((i%len(palette))+len(palette))%len(palette)]
	c.A = alpha
	return c
}

// Panel sizes: a figure is Cols panels wide.
const (
	panelW = 4.2 * vg.Inch
	panelH = 2.8 * vg.Inch
)

// Size is the figure's natural size: panelW × panelH per panel.
func (f *Figure) Size() (w, h vg.Length) {
	cols := max(1, f.Cols)
	rows := max(1, (len(f.Panels)+cols-1)/cols)
	_, lw := f.legend()
	return vg.Length(cols)*panelW + lw, vg.Length(rows) * panelH
}

// Formats are the file formats Write knows, by extension.
var Formats = []string{"svg", "png", "pdf"}

// Write draws the figure at w × h (its Size when 0) in format (svg, png or pdf).
func (f *Figure) Write(out io.Writer, format string, w, h vg.Length) error {
	if w == 0 || h == 0 {
		w, h = f.Size()
	}
	var c interface {
		vg.CanvasWriterTo
	}
	switch format {
	case "svg":
		c = vgsvg.New(w, h)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(150))}
	case "pdf":
		c = vgpdf.New(w, h)
	default:
		return fmt.Errorf("cannot write %q figures (want %s)", format, strings.Join(Formats, ", "))
	}
	if err := f.Draw(draw.New(c)); err != nil {
		return err
	}
	_, err := c.WriteTo(out)
	return err
}

// Draw draws the figure's panels on dc in a grid.
func (f *Figure) Draw(dc draw.Canvas) error {
	if len(f.Panels) == 0 {
		return fmt.Errorf("figure %q has nothing to draw: %s", f.Title, f.Empty)
	}
	cols := max(1, f.Cols)
	rows := (len(f.Panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	for i := range f.Panels {
		p, err := f.Panels[i].plot()
		if err != nil {
			return err
		}
		grid[i/cols][i%cols] = p
	}
	for r := range grid {
		for c := range grid[r] {
			if grid[r][c] == nil { // a grid's last row may be short
				grid[r][c] = plot.New()
				grid[r][c].HideAxes()
			}
		}
	}
	// One legend for the figure, right of the panels: a variant has one
	// colour on all of them, and a legend inside a panel hides data.
	if leg, lw := f.legend(); lw > 0 {
		lc := dc
		lc.Min.X = dc.Max.X - lw
		dc.Max.X -= lw
		leg.Draw(lc)
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 3}
	canvases := plot.Align(grid, tiles, dc)
	for r := range grid {
		for c := range grid[r] {
			grid[r][c].Draw(canvases[r][c])
		}
	}
	return nil
}

// SVG is the figure as an SVG element for inlining in HTML: no XML prolog,
// no namespace declarations (an HTML parser puts <svg> in its namespace
// itself, and the page then names no URL at all).
func (f *Figure) SVG() (string, error) {
	var b bytes.Buffer
	if err := f.Write(&b, "svg", 0, 0); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	s = strings.Replace(s, "\n\txmlns=\"http://www.w3.org/2000/svg\"", "", 1)
	s = strings.Replace(s, "\n\txmlns:xlink=\"http://www.w3.org/1999/xlink\"", "", 1)
	return s, nil
}

func textFont(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// plot builds the panel's gonum plot.
func (p *Panel) plot() (*plot.Plot, error) {
	pl := plot.New()
	// A title or note wider than the panel is broken onto lines: gonum
	// centres one line, and cuts both its ends past the canvas.
	pl.Title.Text = wrapText(p.Title, titleChars)
	pl.Title.TextStyle.Font = textFont(10)
	pl.X.Label.Text, pl.Y.Label.Text = p.XLabel, p.YLabel
	if p.Note != "" {
		pl.X.Label.Text = wrapText(pl.X.Label.Text+" ("+p.Note+")", labelChars)
	}
	for _, a := range []*plot.Axis{&pl.X, &pl.Y} {
		a.Label.TextStyle.Font = textFont(9)
		a.Tick.Label.Font = textFont(8)
	}
	pl.Add(plotter.NewGrid())
	if p.LogY {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = logTicker{}
	}
	// Bands first, then faint lines, then lines and markers on top; within
	// a kind the widest series first, so that a narrow one is drawn over a
	// wide one instead of hidden under it.
	for _, kind := range []SeriesKind{Band, Faint, Line, Markers} {
		for _, s := range widestFirst(p.Series) {
			if s.Kind != kind || len(s.Points) == 0 {
				continue
			}
			if err := addSeries(pl, s); err != nil {
				return nil, fmt.Errorf("panel %q: %w", p.Title, err)
			}
		}
	}
	if p.YMax > p.YMin {
		pl.Y.Min, pl.Y.Max = p.YMin, p.YMax
	}
	if p.LogY && pl.Y.Min <= 0 {
		pl.Y.Min = math.SmallestNonzeroFloat64
	}
	for _, x := range p.VLines {
		if !(x >= pl.X.Min && x <= pl.X.Max) || !(pl.Y.Max > pl.Y.Min) {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: pl.Y.Min}, {X: x, Y: pl.Y.Max}})
		if err != nil {
			return nil, err
		}
		l.LineStyle.Color = color.NRGBA{0x55, 0x55, 0x55, 0xff}
		l.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		l.LineStyle.Width = vg.Points(0.7)
		pl.Add(l)
	}
	return pl, nil
}

func xys(pts []XY) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i].X, out[i].Y = p.X, p.Y
	}
	return out
}

// addSeries adds one series to pl in its kind's style.
func addSeries(pl *plot.Plot, s Series) error {
	switch s.Kind {
	case Band:
		poly := make(plotter.XYs, 0, 2*len(s.Points))
		for i, p := range s.Points {
			poly = append(poly, plotter.XY{X: p.X, Y: s.Hi[i]})
		}
		for i := len(s.Points) - 1; i >= 0; i-- {
			poly = append(poly, plotter.XY{X: s.Points[i].X, Y: s.Lo[i]})
		}
		pg, err := plotter.NewPolygon(poly)
		if err != nil {
			return err
		}
		pg.Color = colorAt(s.Color, 0x40)
		pg.LineStyle.Width = 0
		pl.Add(pg)
	case Faint, Line:
		l, err := plotter.NewLine(xys(s.Points))
		if err != nil {
			return err
		}
		l.LineStyle = lineStyle(s)
		pl.Add(l)
	case Markers:
		sc, err := plotter.NewScatter(xys(s.Points))
		if err != nil {
			return err
		}
		sc.GlyphStyle = glyphStyle(s)
		pl.Add(sc)
		if s.Lo != nil {
			errs := make(plotter.YErrors, len(s.Points))
			for i, p := range s.Points {
				errs[i].Low, errs[i].High = p.Y-s.Lo[i], s.Hi[i]-p.Y
			}
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{xys(s.Points), errs})
			if err != nil {
				return err
			}
			eb.LineStyle.Color = colorAt(s.Color, 0xff)
			eb.CapWidth = vg.Points(3)
			pl.Add(eb)
		}
	}
	return nil
}

// logTicker labels 1, 2 and 5 times the powers of ten (three labelled
// ticks a decade), with unlabelled ticks at the other integers; a range
// too narrow for three labels labels every integer multiple, and one too
// narrow for two takes gonum's default ticks, which the log scale places.
type logTicker struct{}

func (logTicker) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	for _, labelled := range [][]int{{1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		var ticks []plot.Tick
		n := 0
		for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
			for m := 1; m <= 9; m++ {
				v := float64(m) * math.Pow(10, e)
				if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
					continue
				}
				t := plot.Tick{Value: v}
				if slices.Contains(labelled, m) {
					t.Label = fmtLogTick(v)
					n++
				}
				ticks = append(ticks, t)
			}
		}
		if n >= 3 {
			return ticks
		}
	}
	return plot.DefaultTicks{}.Ticks(lo, hi)
}

// fmtLogTick writes a log axis label with one significant digit: "0.002",
// "50", "2e-5", "3e+6" (strconv's "%g" without its exponent's padding).
func fmtLogTick(v float64) string {
	if v >= 1e-3 && v < 1e5 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	s := strconv.FormatFloat(v, 'e', 0, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[:1]
	exp = strings.TrimLeft(exp[1:], "0")
	if sign == "+" {
		sign = ""
	}
	return mant + "e" + sign + exp
}

// Characters of a line of the title (10 pt) and of an axis label (9 pt)
// that fit a panel 4.2 inches wide.
const titleChars, labelChars = 52, 60

// wrapText breaks s between words into lines of at most n characters.
func wrapText(s string, n int) string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(s) {
		switch {
		case cur == "":
			cur = w
		case len([]rune(cur))+1+len([]rune(w)) <= n:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = w
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return strings.Join(lines, "\n")
}

// widestFirst orders series by the height their points span, the widest
// first (a stable sort: series of one span keep their order).
func widestFirst(series []Series) []Series {
	span := func(s Series) float64 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range s.Points {
			if !math.IsNaN(p.Y) && !math.IsInf(p.Y, 0) {
				lo, hi = math.Min(lo, p.Y), math.Max(hi, p.Y)
			}
		}
		if hi < lo {
			return 0
		}
		return hi - lo
	}
	out := append([]Series(nil), series...)
	sort.SliceStable(out, func(a, b int) bool { return span(out[a]) > span(out[b]) })
	return out
}

// cycle is how many times the palette has come round for a colour index:
// past the palette, lines are dashed and markers square.
func cycle(color int) int { return (color / len(palette)) % 2 }

func lineStyle(s Series) draw.LineStyle {
	ls := draw.LineStyle{Color: colorAt(s.Color, 0xff), Width: vg.Points(1.1)}
	if s.Kind == Faint {
		ls.Color, ls.Width = colorAt(s.Color, 0x50), vg.Points(0.5)
	}
	if cycle(s.Color) == 1 {
		ls.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	}
	return ls
}

func glyphStyle(s Series) draw.GlyphStyle {
	gs := draw.GlyphStyle{Color: colorAt(s.Color, 0xff), Shape: draw.CircleGlyph{}, Radius: vg.Points(2)}
	if cycle(s.Color) == 1 {
		gs.Shape = draw.BoxGlyph{}
	}
	return gs
}

// legend is the figure's legend (each labelled series once, in panel
// order) and the width it takes right of the panels (0 without entries).
func (f *Figure) legend() (plot.Legend, vg.Length) {
	leg := plot.NewLegend()
	leg.TextStyle.Font = textFont(8)
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = 0.5 * vg.Centimeter
	leg.YOffs = -vg.Millimeter * 4
	leg.XOffs = vg.Millimeter * 2
	seen := map[string]bool{}
	var widest vg.Length
	for _, p := range f.Panels {
		for _, s := range p.Series {
			if s.Label == "" || seen[s.Label] {
				continue
			}
			seen[s.Label] = true
			if s.Kind == Markers {
				leg.Add(s.Label, &plotter.Scatter{GlyphStyle: glyphStyle(s)})
			} else {
				leg.Add(s.Label, &plotter.Line{LineStyle: lineStyle(s)})
			}
			widest = max(widest, leg.TextStyle.Width(s.Label))
		}
	}
	if len(seen) == 0 {
		return leg, 0
	}
	return leg, widest + leg.ThumbnailWidth + vg.Millimeter*6
}
