package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
)

// TestPanelsFilter: the Grid lists every measured layer × probe; the filter
// keeps those whose layer or probe matches, as a substring or a glob.
func TestPanelsFilter(t *testing.T) {
	m := fixtureModel(4, 4, 100, Options{})
	grid := m.screens[ScreenGrid].(*gridScreen)
	all := len(grid.panels())
	if all == 0 {
		t.Fatal("no panels")
	}
	tests := []struct {
		filter string
		ok     func(p panel) bool
	}{
		{"dist_*", func(p panel) bool { return strings.HasPrefix(p.probe.String(), "dist_") }},
		{"block1.*", func(p panel) bool { return strings.HasPrefix(m.data.meta.Layers[p.layer], "block1.") }},
		{"LN2", func(p panel) bool { return strings.Contains(m.data.meta.Layers[p.layer], "ln2") }},
		{"*ln1/g_var", func(p panel) bool {
			return strings.HasSuffix(m.data.meta.Layers[p.layer], "ln1") && p.probe.String() == "g_var"
		}},
	}
	for _, tc := range tests {
		m.filter.pattern = tc.filter
		ps := grid.panels()
		if len(ps) == 0 || len(ps) == all {
			t.Errorf("%q keeps %d of %d panels", tc.filter, len(ps), all)
		}
		for _, p := range ps {
			if !tc.ok(p) {
				t.Errorf("%q keeps %s · %s", tc.filter, m.data.meta.Layers[p.layer], p.probe)
			}
		}
	}
	m.filter.pattern = "no such thing"
	if n := len(grid.panels()); n != 0 {
		t.Errorf("a filter matching nothing keeps %d", n)
	}
}

// TestGridPages: ↓ turns the page, never past the last; the filter starts
// again on page 1.
func TestGridPages(t *testing.T) {
	m := fixtureModel(4, 6, 100, Options{NoColor: true})
	out := runScreen(t, m, 80, 24, "8", "down", "down")
	if !strings.Contains(out, "page 3 of") {
		t.Fatalf("not on page 3:\n%s", out)
	}
	m = fixtureModel(4, 6, 100, Options{NoColor: true})
	out = runScreen(t, m, 80, 24, append([]string{"8", "down", "/"}, strings.Split("g_mu", "")...)...)
	if !strings.Contains(out, "page 1 of") || !strings.Contains(out, "/g_mu") {
		t.Fatalf("the filter did not restart at page 1:\n%s", out)
	}
}

// TestGoldenGrid: the Grid at 80×24 and 160×48, unfiltered and filtered
// with a glob, colours pinned.
func TestGoldenGrid(t *testing.T) {
	cases := []struct {
		name string
		keys []string
	}{
		{"grid", []string{"8"}},
		{"grid_filtered", append(append([]string{"8", "/"}, strings.Split("dist_*", "")...), "enter")},
		{"grid_nomatch", append([]string{"8", "/"}, strings.Split("zzz", "")...)},
	}
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				dark := true
				m := fixtureModel(4, 6, 200, Options{RunPath: "runs/fixture.ntr", Dark: &dark})
				out := runScreen(t, m, size[0], size[1], tc.keys...)
				golden.RequireEqual(t, pinned(t, out, colorprofile.ANSI256))
			})
		}
	}
}
