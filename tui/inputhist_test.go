package tui

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/normtop/normtop/probes"
)

// histFixtureLayout: python/normtop's default bins.
var histFixtureLayout = probes.HistLayout{Bins: 48, Lo: -6, Hi: 6, Unit: probes.HistUnitStd}

// fixtureHist is the histogram, in z units, of n entries drawn from a
// mixture of two centred normals, a share p of them 4× wider, scaled to
// unit variance: p = 0 is a normal; a growing p grows the tails past ±6σ.
func fixtureHist(layer, n int, p float64) probes.Histogram {
	a := 1 / math.Sqrt(1+15*p)
	cdf := func(z float64) float64 {
		phi := func(x, s float64) float64 { return 0.5 * math.Erfc(-x/(s*math.Sqrt2)) }
		return (1-p)*phi(z, a) + p*phi(z, 4*a)
	}
	l := histFixtureLayout
	h := probes.Histogram{Layer: layer, Mean: 0.01 * float64(layer), Std: 1 + 0.1*float64(layer), Counts: make([]int, l.Bins)}
	h.Under = int(math.Round(float64(n) * cdf(l.Lo)))
	h.Over = int(math.Round(float64(n) * (1 - cdf(l.Hi))))
	for k := range h.Counts {
		h.Counts[k] = int(math.Round(float64(n) * (cdf(l.Edge(k+1)) - cdf(l.Edge(k)))))
	}
	return h
}

// histFixtureModel is the fixture run with input histograms every 10
// steps: layernorm's inputs stay normal, the other variants' grow tails.
func histFixtureModel(steps int) *Model {
	meta := fixtureMeta(4, 6, steps)
	l := histFixtureLayout
	meta.Histogram = &l
	m := newLive(meta, newFakeFeed(), Options{RunPath: "runs/fixture.ntr"})
	for _, f := range fixtureFrames(meta, steps) {
		if f.Step%10 == 0 {
			for layer := range meta.Layers {
				p := 0.0
				if f.Variant > 0 {
					p = 0.25 * float64(f.Step) / float64(steps) * float64(1+layer%3) / 3
				}
				f.Hists = append(f.Hists, fixtureHist(layer, 24576, p))
			}
		}
		m.data.add(&f)
	}
	return m
}

// TestGoldenInputHist: the Layers screen of a run with input histograms,
// the second variant (whose tails grow) selected, at 80×24 and 160×48,
// colour profile pinned to ASCII. Update with: go test ./tui -run
// TestGoldenInputHist -update
func TestGoldenInputHist(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("Layers_%dx%d", size[0], size[1]), func(t *testing.T) {
			out := runScreen(t, histFixtureModel(200), size[0], size[1], "2", "right")
			if !strings.Contains(out, "input") || !strings.Contains(out, "steps 10–200 ↓") {
				t.Fatalf("no input histogram panel:\n%s", out)
			}
			for i, line := range strings.Split(out, "\n") {
				if w := cellWidth(line); w > size[0] {
					t.Errorf("line %d is %d cells wide, over %d", i, w, size[0])
				}
			}
			golden.RequireEqual(t, pinned(t, out, colorprofile.ASCII))
		})
	}
}

// TestInputHistPanelShape: every line of the panel is exactly its width,
// at any size; a histogram with every entry in one bin draws one full bar
// there and nothing elsewhere; NaN entries are flagged.
func TestInputHistPanelShape(t *testing.T) {
	meta := fixtureMeta(1, 1, 10)
	l := probes.HistLayout{Bins: 12, Lo: -6, Hi: 6, Unit: probes.HistUnitStd}
	meta.Histogram = &l
	m := newLive(meta, newFakeFeed(), Options{})
	h := probes.Histogram{Counts: make([]int, 12), Mean: 1, Std: 2, NaN: 3}
	h.Counts[7] = 100
	m.data.add(&probes.Frame{Step: 5, Hists: []probes.Histogram{h}})
	for _, wh := range [][2]int{{29, 6}, {40, 12}, {64, 30}, {200, 9}} {
		p := m.common.inputHistPanel(0, 0, wh[0], wh[1])
		if len(p) != wh[1] {
			t.Fatalf("%v: %d lines", wh, len(p))
		}
		for i, line := range p {
			if cellWidth(line) != wh[0] {
				t.Errorf("%v: line %d is %d cells: %q", wh, i, cellWidth(line), line)
			}
		}
		if j := strings.Join(p, "\n"); !strings.Contains(j, "NaN 3") || !strings.Contains(j, "of 103") {
			t.Errorf("%v: tail line lacks the NaN count:\n%s", wh, strings.Join(p, "\n"))
		}
	}
	p := m.common.inputHistPanel(0, 0, 40, 12)
	_, cols, cells := histColumns(12, 36)
	barRow := []rune(ansiStrip(p[1])) // the top bar row
	full := 0
	for _, r := range barRow {
		if r == '█' {
			full++
		}
	}
	if full != cells || cols != 12 {
		t.Errorf("top bar row %q: %d full cells, want %d (one bin of %d columns)", string(barRow), full, cells, cols)
	}
}

// TestHistTrackThins: the kept histograms span the whole run at an even
// spacing, bounded by histKeep + 1, the latest always at hand.
func TestHistTrackThins(t *testing.T) {
	var tr histTrack
	for s := 1; s <= 1000; s++ {
		tr.add(s, probes.Histogram{Counts: []int{s}})
		if len(tr.kept) > histKeep+1 {
			t.Fatalf("step %d: %d kept", s, len(tr.kept))
		}
		if tr.last.step != s {
			t.Fatalf("latest %d at step %d", tr.last.step, s)
		}
	}
	if tr.kept[0].step != 1 {
		t.Errorf("first kept step %d, want 1", tr.kept[0].step)
	}
	gap := tr.kept[1].step - tr.kept[0].step
	for i := 1; i < len(tr.kept); i++ {
		if d := tr.kept[i].step - tr.kept[i-1].step; d != gap {
			t.Fatalf("uneven spacing: %d then %d at %d", gap, d, i)
		}
	}
	if last := tr.kept[len(tr.kept)-1].step; 1000-last >= gap {
		t.Errorf("last kept step %d, more than a spacing (%d) before 1000", last, gap)
	}
	if len(tr.kept) < histKeep/2 {
		t.Errorf("only %d kept", len(tr.kept))
	}
}

// TestInputHistsDropMisfits: a histogram of another bin count or an
// unknown layer is not kept; a run without bins keeps none; a seek back
// (reset) forgets them.
func TestInputHistsDropMisfits(t *testing.T) {
	meta := fixtureMeta(2, 2, 10)
	l := probes.HistLayout{Bins: 4, Lo: -6, Hi: 6, Unit: probes.HistUnitStd}
	meta.Histogram = &l
	s := newStore(meta)
	s.add(&probes.Frame{Variant: 1, Step: 1, Hists: []probes.Histogram{{Layer: 0, Counts: []int{1, 2, 3}}, {Layer: 5, Counts: []int{1, 2, 3, 4}}, {Layer: 1, Counts: []int{1, 2, 3, 4}}}})
	if s.inputs.track(1, 0) != nil || s.inputs.track(1, 1) == nil || s.inputs.track(0, 1) != nil {
		t.Fatalf("tracks: %+v", s.inputs.tracks)
	}
	s.reset()
	if s.inputs.track(1, 1) != nil {
		t.Fatal("reset kept a histogram")
	}
	plain := newStore(fixtureMeta(1, 1, 10))
	plain.add(&probes.Frame{Step: 1, Hists: []probes.Histogram{{Counts: []int{1}}}})
	if plain.inputs.track(0, 0) != nil {
		t.Fatal("a run without bins kept a histogram")
	}
}

// ansiStrip drops SGR escapes.
func ansiStrip(s string) string { return ansi.Strip(s) }
