package tui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// NewLive returns the dashboard of a run in progress. It drains feed on the
// UI goroutine whenever feed.Ready() fires, so the trainer never waits on
// the screen; redraws are coalesced to at most 20 per second and nothing
// runs while no frames arrive. Close the feed when the run ends.
func NewLive(meta probes.RunMeta, feed *probes.Feed, opt Options) tea.Model {
	return newLive(meta, feed, opt)
}
