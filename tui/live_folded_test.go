package tui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// TestLiveDrawsOnTheProducersFold: fed with PushFolded (a live run: the
// writer folds each Frame), the dashboard's standings are the producer's,
// Frames the lossy feed dropped included, and the store folds nothing
// again (a second fold would count every alert twice). Fed with Push, the
// store folds what it drains itself.
func TestLiveDrawsOnTheProducersFold(t *testing.T) {
	meta := fixtureMeta(4, 3, 200) // batchnorm's outlier, an over-fit alert, adanorm's divergence
	frames := fixtureFrames(meta, 200)
	for _, folded := range []bool{true, false} {
		feed, producer := probes.NewFeed(16), probes.NewStandings(meta)
		for i := range frames {
			producer.Fold(&frames[i])
			if folded {
				feed.PushFolded(frames[i], producer)
			} else {
				feed.Push(frames[i])
			}
		}
		feed.Close()
		m := newLive(meta, feed, Options{})
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		m.Update(feedReadyMsg{})
		if feed.Dropped() == 0 {
			t.Fatalf("the feed dropped nothing: the test needs a lossy feed")
		}
		if m.data.folded != folded {
			t.Errorf("PushFolded %v: the store's folded flag is %v", folded, m.data.folded)
		}
		// %+v, not reflect.DeepEqual: a diverged variant's NaN train loss
		// equals itself in print only.
		if got, want := fmt.Sprintf("%+v", m.data.tally.Variants), fmt.Sprintf("%+v", producer.Variants); folded && got != want {
			t.Errorf("the dashboard's standings are not the producer's:\n%s\n%s", got, want)
		}
		alerts := 0
		for v := range producer.Variants {
			for _, n := range producer.Variants[v].Alerts {
				alerts += n
			}
			if got, want := m.data.tally.Variants[v].Alerts, producer.Variants[v].Alerts; got != want {
				t.Errorf("PushFolded %v, variant %d: alerts %v, want %v", folded, v, got, want)
			}
		}
		if alerts < 3 {
			t.Fatalf("the fixture raised %d alerts; the test needs some to count", alerts)
		}
	}
}
