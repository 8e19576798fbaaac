package tui

import (
	"fmt"
	"math"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// TestEnterShowsEventOfSlowVariant: variants interleave unevenly in a run
// file (each trains at its own pace): here variant 0's frames run 30 steps
// ahead of variant 1's. enter on variant 1's alert at step 100 must leave
// that alert on the screen; a seek that stopped at the first frame of step
// ≥ 100 (variant 0's) read variant 1 only up to step 70 and showed no event.
func TestEnterShowsEventOfSlowVariant(t *testing.T) {
	meta := fixtureMeta(2, 1, 200)
	var frames []probes.Frame
	for s := 1; s <= 230; s++ {
		for v, step := range []int{s, s - 30} {
			if step < 1 || step > 200 {
				continue
			}
			f := probes.Frame{Variant: v, Step: step, TrainLoss: 1}
			if v == 1 && step == 100 {
				f.Alerts = []probes.Alert{{Kind: probes.AlertOutlier, Step: 100, Layer: 0, Probe: probes.DistVar, Value: 9, Threshold: 1}}
			}
			frames = append(frames, f)
		}
	}
	src := &sliceSource{meta: meta, frames: frames}
	m := NewReplay(src, Options{Speed: 64}).(*Model)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	drive(t, m, m.Init(), 1000, nil)
	m.Update(keyPress("space"))
	m.Update(keyPress("6"))
	_, cmd := m.Update(keyPress("enter"))
	drive(t, m, cmd, 1000, nil)
	if got := m.data.tally.Variants[1].Step; got < 100 {
		t.Fatalf("variant 1 at step %d after enter on its event at 100", got)
	}
	if rows := m.screens[ScreenEvents].(*eventsScreen).eventRows(); len(rows) != 1 {
		t.Fatalf("%d event rows after enter, want the event itself", len(rows))
	}
	if out := m.View().Content; !strings.Contains(out, "dist_var") {
		t.Fatalf("the event is not on the screen:\n%s", out)
	}
}

// TestEventsCountUnderFilter: under a filter the title counts what the
// filter lets through, then all ("events 3 of 9"), not all alone.
func TestEventsCountUnderFilter(t *testing.T) {
	m := fixtureModel(4, 6, 200, Options{NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	all := len(m.data.events)
	m.st.Screen = ScreenEvents
	ev := m.screens[ScreenEvents].(*eventsScreen)
	ev.state.kind = int(probes.AlertDivergence)
	m.dirty = true
	out := m.View().Content
	want := fmt.Sprintf("events %d of %d", ev.matchedEvents(), all)
	if ev.matchedEvents() == all || !strings.Contains(out, want) {
		t.Fatalf("want %q (filtered %d of %d):\n%s", want, ev.matchedEvents(), all, out)
	}
	// The text filter: only rows whose layer, variant, kind or message match.
	ev.state.kind, m.filter.pattern = -1, "block1.ln2"
	for _, r := range ev.eventRows() {
		if r.Layer < 0 || m.data.meta.Layers[r.Layer] != "block1.ln2" {
			if !strings.Contains(r.Msg, "block1.ln2") {
				t.Errorf("row %+v passes the filter block1.ln2", r)
			}
		}
	}
}

// TestSummaryTitleFollowsSort: after o the title says which column the
// rows are sorted by, not "ranked by".
func TestSummaryTitleFollowsSort(t *testing.T) {
	m := fixtureModel(4, 6, 200, Options{NoColor: true})
	out := runScreen(t, m, 120, 30, "7", "o", "o", "o", "o", "o", "o")
	if !strings.Contains(out, "sorted by train") || strings.Contains(out, "ranked by") {
		t.Fatalf("title does not follow the sort:\n%s", out)
	}
}

// TestSummaryFootnoteShownColumns: at 80 columns the footnote explains only
// the columns the table shows.
func TestSummaryFootnoteShownColumns(t *testing.T) {
	m := fixtureModel(4, 6, 200, Options{NoColor: true})
	out := runScreen(t, m, 80, 24, "7")
	lines := strings.Split(out, "\n")
	header := ""
	for _, l := range lines {
		if strings.Contains(l, "variant") && strings.Contains(l, "#") {
			header = l
			break
		}
	}
	if header == "" {
		t.Fatalf("no table header:\n%s", out)
	}
	dropped := 0
	for _, n := range summaryNotes {
		if strings.Contains(out, n.note) && !strings.Contains(header, n.head) {
			t.Errorf("footnote explains %q, a column not shown:\n%s", n.head, out)
		}
		if !strings.Contains(header, n.head) {
			dropped++
		}
	}
	if dropped == 0 {
		t.Fatal("no column dropped at 80 columns: the test checks nothing")
	}
}

// TestGradientsAutoLog: values spanning more than 3 decades (3.5e-10 to
// 3.3e-7) get a log axis by default; l turns it off; values within a
// decade or two stay linear.
func TestGradientsAutoLog(t *testing.T) {
	meta := fixtureMeta(1, 1, 100)
	m := newLive(meta, newFakeFeed(), Options{NoColor: true})
	for step := 1; step <= 100; step++ {
		f := probes.Frame{Variant: 0, Step: step, TrainLoss: 1, Layers: make([]probes.LayerValues, 1)}
		f.Layers[0] = probes.EmptyLayerValues()
		f.Layers[0][probes.DxVar] = 3.5e-10 * math.Pow(1000, float64(step)/100) // to 3.5e-7
		f.Layers[0][probes.DyVar] = 1e-6
		m.data.add(&f)
	}
	out := runScreen(t, m, 120, 40, "5")
	if !strings.Contains(out, "(log10)") {
		t.Fatalf("no log axis for 3 decades and more:\n%s", out)
	}
	if out := runScreen(t, m, 120, 40, "l"); strings.Contains(out, "(log10)") {
		t.Fatalf("l left the log axis on:\n%s", out)
	}
	if spansDecades([]bucket{{Min: 1, Max: 500, Count: 1}}) {
		t.Error("2.7 decades counted as more than 3")
	}
}

// TestNoColorGlyphsOnLines: without colour every variant's glyph is on its
// own line often enough to follow it across the Overview's chart.
func TestNoColorGlyphsOnLines(t *testing.T) {
	m := fixtureModel(4, 2, 200, Options{NoColor: true})
	out := runScreen(t, m, 80, 24)
	plot := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "┤") || strings.Contains(l, "│") {
			if i := strings.IndexAny(l, "┤│"); i >= 0 {
				plot += l[i:]
			}
		}
	}
	// Lines are drawn by rank, the leader last: the last-ranked variant's
	// (adanorm, diverged at 150) is drawn first, partly covered. Its val
	// points are its number (issue 35: they were the line's glyph).
	for i := range 4 {
		g := variantGlyphs[i]
		if n := strings.Count(plot, g); n < 3 {
			t.Errorf("variant %d's glyph %q is on the chart %d times, want ≥ 3", i, g, n)
		}
	}
	// The val points are drawn by rank too: the leader's are all there.
	if n := strings.Count(plot, "1"); n < 8 {
		t.Errorf("the leader's val points (\"1\") are on the chart %d times, want its 10 evaluations but a couple", n)
	}
	if !strings.Contains(out, "*1 layernorm") {
		t.Errorf("the legend does not give layernorm's line glyph and val number:\n%s", out)
	}
}

// TestListKeys: h and F1 open the help; / types a text filter (backspace,
// enter keeps it, esc clears it, but with the chart cursor on esc is the
// cursor's); PgUp/PgDn page and Home/End go to the ends of the list.
func TestListKeys(t *testing.T) {
	b := Bounds{Variants: 2, Layers: 30, Page: 10}
	s := NewState(false, 1)
	for _, k := range []string{"h", "f1", "?"} {
		if got, _ := Navigate(s, k, b); !got.Help {
			t.Errorf("%s does not open the help", k)
		}
	}
	var flt textFilter
	if _, ok := filterKeys.handle(&flt, false, "/", false); !ok || !flt.typing {
		t.Fatal("/ does not type the filter")
	}
	for _, k := range []keyName{"a", "b", "backspace", "c", "space", "d", "enter"} {
		flt.typeKey(k)
	}
	if flt.pattern != "ac d" || flt.typing {
		t.Fatalf("filter %q (typing %v), want \"ac d\" kept", flt.pattern, flt.typing)
	}
	if _, ok := filterKeys.handle(&flt, true, "esc", false); ok || flt.pattern == "" {
		t.Errorf("esc with the cursor on was the filter's (pattern %q), not the cursor's", flt.pattern)
	}
	if _, ok := filterKeys.handle(&flt, false, "esc", false); !ok || flt.pattern != "" {
		t.Errorf("esc kept the filter %q", flt.pattern)
	}
	flt = textFilter{pattern: "ab", typing: true}
	if flt.typeKey("esc"); flt.pattern != "" || flt.typing {
		t.Errorf("esc while typing: %+v, want the filter dropped", flt)
	}
	// The Events screen's own keys over its rows.
	var ev eventsState
	f := eventsFacts{steps: make([]int, 50), nVariants: 2, page: 10}
	for _, tc := range []struct {
		k    keyName
		want int
	}{{"pgdown", 10}, {"end", 49}, {"pgup", 39}, {"home", 0}} {
		if _, ok := eventsKeys.handle(&ev, f, tc.k, false); !ok || ev.sel != tc.want {
			t.Errorf("%s: event %d (handled %v), want %d", tc.k, ev.sel, ok, tc.want)
		}
	}
	s.Screen = ScreenLayers
	if s, _ = Navigate(s, "pgdown", b); s.Layer != 10 {
		t.Errorf("pgdown on layers: layer %d, want 10", s.Layer)
	}
}
