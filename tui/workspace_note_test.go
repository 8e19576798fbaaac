package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/normtop/normtop/probes"
)

// TestWorkspaceOverlayNotes (issue 35): runs of one model on different
// data (word- and character-level losses) overlaid say so; past the
// palette the overlay says its colours repeat; two runs overlaid take
// different colours.
func TestWorkspaceOverlayNotes(t *testing.T) {
	build := func(runs, nv int, metrics ...string) string {
		ws := NewWorkspace(nil, nil, Options{}, "").(*Workspace)
		for r := range runs {
			meta := fixtureMeta(nv, 2, 100)
			meta.RunID = fmt.Sprintf("202601%02dT000000Z-transformer-seed1", r+1)
			meta.Metric = metrics[r%len(metrics)]
			st := newStore(meta)
			for s := 1; s <= 100; s++ {
				for v := range nv {
					st.add(&probes.Frame{Variant: v, Step: s, TrainLoss: 2 + 0.1*float64(v+r)})
				}
			}
			ws.runs = append(ws.runs, wsRun{path: meta.RunID + ".ntr", meta: meta, data: st, loaded: true})
			ws.picked[r] = true
		}
		ws.Update(tea.WindowSizeMsg{Width: 240, Height: 60})
		return ansi.Strip(ws.View().Content)
	}
	if out := build(2, 2, "ppl", "bpc"); !strings.Contains(out, "different data (bpc, ppl)") {
		t.Errorf("word- and character-level runs overlaid without a note:\n%s", out)
	}
	if out := build(2, 2, "ppl"); strings.Contains(out, "different data") || strings.Contains(out, "colours repeat") {
		t.Errorf("a note on runs of one kind, within the palette:\n%s", out)
	}
	if out := build(3, 4, "ppl"); !strings.Contains(out, "colours repeat") {
		t.Errorf("12 lines and no note that colours repeat:\n%s", out)
	}
}
