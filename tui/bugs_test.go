package tui

import (
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
	if len(m.eventRows()) != 1 {
		t.Fatalf("%d event rows after enter, want the event itself", len(m.eventRows()))
	}
	if out := m.View().Content; !strings.Contains(out, "dist_var") {
		t.Fatalf("the event is not on the screen:\n%s", out)
	}
}
