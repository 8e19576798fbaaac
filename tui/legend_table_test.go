package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/normtop/normtop/probes"
)

// TestLegendAgreesWithTable: with the cursor on the last step, the
// Overview's legend prints every variant's train and val loss as the
// ranking table below it does: one definition of "train" (the mean the
// newest val evaluation's gap was taken against, probes' Train), one
// format (probes.FormatLoss). A diverged variant's numbers are those of
// its last evaluation in both.
func TestLegendAgreesWithTable(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		m := fixtureModel(4, 6, 200, Options{NoColor: true})
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m.Update(keyPress("c"))
		screen := m.View().Content
		var rows []string // the ranking table's rows, under its heading
		for _, l := range strings.Split(ansi.Strip(screen), "\n") {
			if rows != nil || strings.Contains(l, "# variant") {
				rows = append(rows, l)
			}
		}
		checked := 0
		for _, x := range m.data.standings() {
			tr, va := probes.FormatLoss(x.TrainLoss.Mean), probes.FormatLoss(x.ValLoss.Mean)
			if !strings.Contains(screen, x.Key+" "+tr+" • "+va) {
				t.Errorf("%dx%d: the legend does not read %s %s • %s:\n%s", size[0], size[1], x.Key, tr, va, screen)
			}
			for _, l := range rows {
				name := strings.TrimSuffix(strings.Fields(strings.ReplaceAll(l, "★", " ") + " x x")[1], "…")
				if !strings.HasPrefix(x.Key, name) {
					continue
				}
				if !strings.Contains(l, " "+va+" ") || !strings.Contains(l, " "+tr+" ") {
					t.Errorf("%dx%d: the table's row %q lacks train %s or val %s", size[0], size[1], l, tr, va)
				}
				checked++
			}
		}
		if checked != len(m.data.standings()) {
			t.Fatalf("%dx%d: found %d table rows of %d:\n%s", size[0], size[1], checked, len(m.data.standings()), screen)
		}
	}
}
