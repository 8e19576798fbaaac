package report

import (
	"math"
	"sort"
	"strconv"

	"github.com/normtop/normtop/probes"
)

// A Figure is first a value (its panels, axes and series of (x, y)), then
// a drawing (figure_draw.go): tests check the data handed to the plotter,
// not pixels.
type Figure struct {
	Title   string
	Caption string // what is drawn, for the page under the figure
	Cols    int    // panels per row (Panels is row-major)
	Panels  []Panel
	// Empty says why nothing could be drawn (the runs lack what the
	// claim compares); Panels is then empty.
	Empty string
}

// Panel is one chart of a figure.
type Panel struct {
	Title          string
	XLabel, YLabel string
	LogY           bool
	// YMin, YMax fix the y range when YMax > YMin (panels of one row that
	// compare magnitudes share it); otherwise it follows the data.
	YMin, YMax float64
	Series     []Series
	VLines     []float64 // dashed vertical lines (a start-up window's end, σ_k's k)
	Note       string    // e.g. values a log axis cannot show
}

// SeriesKind is how a series is drawn.
type SeriesKind uint8

const (
	Line    SeriesKind = iota // a solid line
	Faint                     // a thin, pale line: the raw series under a smoothed one
	Markers                   // points (validation evaluations); error bars from Lo/Hi when set
	Band                      // the area between Lo and Hi at each point's x (mean ± sd over seeds)
)

// Series is one drawn series. Color indexes the palette (one colour per
// variant group across a page).
type Series struct {
	Label  string // legend entry; "" for none
	Kind   SeriesKind
	Color  int
	Points []XY
	Lo, Hi []float64 // Band, and Markers' error bars: per point
}

// xyOf copies a replicate curve (the figures must not alias it).
func xyOf(c []XY) []XY { return append([]XY(nil), c...) }

// logSafe drops the points a log axis cannot show (y ≤ 0, or a band or
// error bar reaching to ≤ 0) from the panel's series and says in the
// panel's note how many values went (band points are not counted).
func (p *Panel) logSafe() {
	if !p.LogY {
		return
	}
	dropped := 0
	for si := range p.Series {
		s := &p.Series[si]
		keep := s.Points[:0:0]
		var lo, hi []float64
		for i, pt := range s.Points {
			if !(pt.Y > 0) || (s.Lo != nil && !(s.Lo[i] > 0)) {
				if s.Kind != Band { // a band's lower edge is not a recorded value
					dropped++
				}
				continue
			}
			keep = append(keep, pt)
			if s.Lo != nil {
				lo, hi = append(lo, s.Lo[i]), append(hi, s.Hi[i])
			}
		}
		s.Points, s.Lo, s.Hi = keep, lo, hi
	}
	if dropped > 0 {
		p.Note = strconv.Itoa(dropped) + " value(s) ≤ 0 not shown on the log axis"
	}
}

// shareY gives the panels one y range: the data's over all of them.
func shareY(ps []*Panel) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range ps {
		for _, s := range p.Series {
			for i, pt := range s.Points {
				lo, hi = min(lo, pt.Y), max(hi, pt.Y)
				if s.Lo != nil {
					lo, hi = min(lo, s.Lo[i]), max(hi, s.Hi[i])
				}
			}
		}
	}
	if hi > lo {
		for _, p := range ps {
			p.YMin, p.YMax = lo, hi
		}
	}
}

// groupLabel names a group in a legend: its spec and seeds.
func groupLabel(g *Group, multiModel bool) string {
	l := g.Label(multiModel)
	if len(g.Reps) > 1 {
		l += " (seeds " + g.SeedList() + ")"
	}
	return l
}

// probeSeries draws probe p of the first norm layer of each of the
// group's seeds: one line per seed in the group's colour.
func probeSeries(g *Group, p probes.Probe, color int, multiModel bool) []Series {
	var raw [][]XY
	for _, r := range g.Reps {
		if r.Curves != nil && len(r.Curves.First[p]) > 0 {
			raw = append(raw, r.Curves.First[p])
		}
	}
	return seedLines(groupLabel(g, multiModel), color, raw, nil)
}

// trainSeries draws a group's train loss: each seed's recorded values
// faint, the smoothed loss (mean over seeds) as a line, and the band of
// ± one sd over seeds where there are several.
func trainSeries(g *Group, color int, multiModel bool) []Series {
	var raw, smooth [][]XY
	for _, r := range g.Reps {
		if r.Curves != nil && len(r.Curves.Train) > 0 {
			raw, smooth = append(raw, r.Curves.Train), append(smooth, r.Curves.TrainSmooth)
		}
	}
	return seedLines(groupLabel(g, multiModel), color, raw, smooth)
}

// seedLines draws one group's seeds: without smoothed curves, each seed's
// raw curve as a line (the legend on the first); with them, each raw curve
// faint under the mean of the smoothed ones, with its ± sd band when there
// are several seeds.
func seedLines(label string, color int, raw, smooth [][]XY) []Series {
	var out []Series
	if smooth == nil {
		for _, c := range raw {
			out = append(out, Series{Kind: Line, Color: color, Points: xyOf(c)})
		}
		if len(out) > 0 {
			out[0].Label = label
		}
		return out
	}
	for _, c := range raw {
		out = append(out, Series{Kind: Faint, Color: color, Points: xyOf(c)})
	}
	return append(out, meanBand(label, color, smooth)...)
}

// meanBand draws the mean over seeds of curves as a line, with its ± sd
// band when there are several.
func meanBand(label string, color int, curves [][]XY) []Series {
	var out []Series
	mean, lo, hi := band(curves)
	if lo != nil {
		out = append(out, Series{Kind: Band, Color: color, Points: xyOf(mean), Lo: lo, Hi: hi})
	}
	if len(mean) > 0 {
		out = append(out, Series{Label: label, Kind: Line, Color: color, Points: xyOf(mean)})
	}
	return out
}

// evalSeries draws a group's validation evaluations of one quantity (loss,
// metric or gap): at each evaluated step the mean over the seeds evaluated
// there, with ± one sd as error bars when several were.
func evalSeries(g *Group, color int, label string, val func(EvalXY) float64) []Series {
	var evals [][]EvalXY
	for _, r := range g.Reps {
		if r.Curves != nil {
			evals = append(evals, r.Curves.Val)
		}
	}
	return evalMarkers(evals, color, label, val)
}

// evalMarkers is evalSeries over the seeds' evaluations.
func evalMarkers(evals [][]EvalXY, color int, label string, val func(EvalXY) float64) []Series {
	at := map[int][]float64{}
	for _, ev := range evals {
		for _, e := range ev {
			if v := val(e); !math.IsNaN(v) && !math.IsInf(v, 0) {
				at[e.Step] = append(at[e.Step], v)
			}
		}
	}
	steps := make([]int, 0, len(at))
	for s := range at {
		steps = append(steps, s)
	}
	sort.Ints(steps)
	s := Series{Label: label, Kind: Markers, Color: color}
	several := false
	var lo, hi []float64
	for _, st := range steps {
		a := probes.NewMeanSD(at[st])
		sd := a.SD
		if a.N < 2 || math.IsNaN(sd) {
			sd = 0
		} else {
			several = true
		}
		s.Points = append(s.Points, XY{float64(st), a.Mean})
		lo, hi = append(lo, a.Mean-sd), append(hi, a.Mean+sd)
	}
	if several {
		s.Lo, s.Hi = lo, hi
	}
	if len(s.Points) == 0 {
		return nil
	}
	return []Series{s}
}
