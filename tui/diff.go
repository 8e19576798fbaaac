package tui

import (
	"fmt"
	"math"

	"github.com/normtop/normtop/probes"
)

// The Overview's difference view (d): every variant's loss minus the
// baseline's at the same step, so that a gap of a few hundredths of a nat,
// lost in batch noise on the loss chart, takes the chart's whole height.
// Train loss is smoothed (the same level as the loss chart), val loss is
// not; with seeds, the line is the mean of the seed-paired differences and
// a faint band spans ± their sd.

// diffChart: the difference of every standing to the baseline (b cycles
// it), the baseline drawn as the zero line.
func (m *overviewScreen) diffChart(st []standing) lossChart {
	s := m.styles
	m.lay.logShown = false // differences change sign
	bi := clamp(m.state.baseline, 0, len(st)-1)
	base := &st[bi]
	train := func(v *variantData) []bucket {
		if sm := v.smoothedTrain(m.st.Smooth); sm != nil {
			return rawBuckets(sm)
		}
		return rawBuckets(v.series(seriesTrainLoss))
	}
	val := func(v *variantData) []bucket { return rawBuckets(v.series(seriesValLoss)) }
	what := "train ─"
	if n := smoothNote(m.st.Smooth); n != "" {
		what += " (" + n + ")"
	}
	title := s.Heading.Render("Δ loss vs "+seedLabel(*base)) +
		s.Dim.Render(" · "+what+" and val • minus its, step by step; < 0 is better (b: baseline)")
	c := lossChart{}
	var faint, lines []chartSeries
	vals := make([]float64, 0, 2*len(st))
	seeds := false
	for k := range st {
		x := &st[k]
		i := x.Variants[0]
		if k == bi || m.hidden(i) {
			vals = append(vals, math.NaN(), math.NaN())
			continue
		}
		tr, band := m.diffOver(x, base, train, false)
		va, _ := m.diffOver(x, base, val, true)
		label := seedLabel(*x)
		if band != nil {
			seeds = true
			faint = append(faint, chartSeries{label: label + " ±sd", color: i, bs: band, faint: true})
		}
		lines = append(lines,
			chartSeries{label: label, color: i, glyph: m.glyph(i), bs: tr},
			chartSeries{label: label + " val", color: i, glyph: m.valGlyph(i), bs: va, points: true})
		vals = append(vals, m.readoutVal(tr, false), m.readoutVal(va, true))
	}
	c.title = title
	zero := zeroLine(train(&m.data.variants[base.Variants[0]]))
	lines = append([]chartSeries{{label: seedLabel(*base), color: base.Variants[0], glyph: m.glyph(base.Variants[0]), bs: zero}}, lines...)
	// The leader is drawn last; a line another covers says so.
	lines = m.drawByRank(lines, st)
	lo, hi := m.xRange()
	covered := coveredBy(lines, lo, hi, transientEnd(lines, lo, hi))
	fm := colFormat(vals)
	for k := range st {
		x := &st[k]
		i := x.Variants[0]
		switch {
		case k == bi:
			e := m.legendEntry(i, seedLabel(*x), "─", joinNotes("baseline (0)", coverNote(covered, seedLabel(*x))))
			if x.Status == probes.Diverged {
				e += s.Bad.Render(fmt.Sprintf(" diverged at %d: no difference after it", x.Stopped))
			}
			c.legend = append(c.legend, e)
		case m.hidden(i):
			c.legend = append(c.legend, s.Dim.Render("("+seedLabel(*x)+" hidden: v)"))
		default:
			mark := "─"
			if g := m.valGlyph(i); g != "" {
				mark = m.glyph(i) + g
			}
			c.legend = append(c.legend, m.legendEntry(i, seedLabel(*x), mark,
				joinNotes(signed(fm, vals[2*k])+" • "+signed(fm, vals[2*k+1]), coverNote(covered, seedLabel(*x)))))
		}
	}
	if seeds {
		c.legend = append(c.legend, s.Dim.Render("band: ± sd over seeds"))
	}
	c.series = append(faint, lines...)
	return c
}

// signed writes a difference with its sign ("+0.031", "−0.2").
func signed(fm func(float64) string, v float64) string {
	if v > 0 {
		return "+" + fm(v)
	}
	return fm(v)
}

// zeroLine is a flat series at 0 over the steps of bs.
func zeroLine(bs []bucket) []bucket {
	out := make([]bucket, len(bs))
	for i, b := range bs {
		out[i] = bucket{FirstStep: b.FirstStep, LastStep: b.LastStep, Count: b.Count}
	}
	return out
}

// diffOver is standing x's series minus the baseline's, seed by seed
// (paired by seed where both have it, so that the shared data order and
// initialisation cancel), then the mean over pairs and, with several, a
// band of ± their sd (nil for one pair). exact (evaluations): a point
// counts only where the baseline has one at the same step.
func (m *overviewScreen) diffOver(x, base *standing, series func(*variantData) []bucket, exact bool) (mean, band []bucket) {
	var pairs [][]bucket
	for k, a := range x.Variants {
		c := m.pairOf(a, base, k)
		if d := diffBuckets(series(&m.data.variants[a]), series(&m.data.variants[c]), exact); len(d) > 0 {
			pairs = append(pairs, d)
		}
	}
	switch len(pairs) {
	case 0:
		return nil, nil
	case 1:
		return pairs[0], nil
	}
	grid := pairs[0]
	mean = make([]bucket, 0, len(grid))
	band = make([]bucket, 0, len(grid))
	ds := make([]float64, len(pairs))
	for _, g := range grid {
		ds = ds[:0]
		for _, p := range pairs {
			if v, at, ok := valueAt(p, g.LastStep); ok && (!exact || at == g.LastStep) {
				ds = append(ds, v)
			}
		}
		ms := probes.NewMeanSD(ds)
		mu, sd := ms.Mean, ms.SD
		if ms.N < 2 {
			sd = 0 // one pair at this step: the band collapses to it
		}
		b := g
		b.Min, b.Max, b.Last = mu, mu, mu
		mean = append(mean, b)
		b.Min, b.Max = mu-sd, mu+sd
		band = append(band, b)
	}
	return mean, band
}

// pairOf is the baseline variant variant a is compared with: the one of
// the same seed, else the k-th (cycling) of the baseline's.
func (m *overviewScreen) pairOf(a int, base *standing, k int) int {
	seedOf := func(i int) int64 { return m.data.meta.Variants[i].Seed }
	for _, c := range base.Variants {
		if seedOf(c) == seedOf(a) {
			return c
		}
	}
	return base.Variants[k%len(base.Variants)]
}

// diffBuckets is a's value minus b's at each of a's buckets' last step
// (b holds its latest value before it, as the cursor reads it; exact:
// only where b has a point at that very step). Buckets collapse onto
// the difference.
func diffBuckets(a, b []bucket, exact bool) []bucket {
	out := make([]bucket, 0, len(a))
	for _, x := range a {
		if x.Count == 0 {
			continue
		}
		v, at, ok := valueAt(b, x.LastStep)
		if !ok || (exact && at != x.LastStep) {
			continue
		}
		d := x.Last - v
		if math.IsNaN(d) || math.IsInf(d, 0) {
			continue
		}
		x.Min, x.Max, x.Last = d, d, d
		out = append(out, x)
	}
	return out
}
