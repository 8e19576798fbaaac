package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// crashedSource is an endedSource whose writer is gone without an end
// record: it implements Crasher.
type crashedSource struct {
	endedSource
}

func (c *crashedSource) Crashed() bool { return c.ended }

// TestFollowWriterKilled (issue 25, case 6): following a run whose writer
// was killed mid-run, the dashboard says "killed or crashed" in its header
// and each variant's status says killed/crashed, instead of "(ended)" with every variant
// "running".
func TestFollowWriterKilled(t *testing.T) {
	meta := fixtureMeta(2, 2, 1000)
	var frames []probes.Frame
	for s := 1; s <= 100; s++ { // killed at step 100 of 1000
		for v := range meta.Variants {
			frames = append(frames, fixtureFrame(&meta, v, s, 1000))
		}
	}
	src := &crashedSource{endedSource{sliceSource{meta: meta, frames: frames}, true}}
	m := NewReplay(src, Options{Follow: true}).(*Model)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	trace(t, m, m.Init(), 100, nil)
	m.Update(keyPress("1"))
	v := m.View().Content
	if !strings.Contains(v, "following · ended (killed or crashed)") {
		t.Errorf("header does not say killed or crashed:\n%s", v)
	}
	if strings.Contains(v, "running") || strings.Count(v, "killed/crashed") != 2 {
		t.Errorf("a variant shows running, or none says killed:\n%s", v)
	}
}
