package tui

import (
	"time"

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

// newLive is NewLive over the feed interface (tests use a fake feed).
func newLive(meta probes.RunMeta, feed feedSource, opt Options) *Model {
	m := newModel(meta, opt, false)
	m.live = &liveDriver{feed: feed, data: m.data}
	m.feed = m.live
	m.config.live = true
	return m
}

// feedSource is the part of *probes.Feed the live dashboard uses.
type feedSource interface {
	Ready() <-chan struct{}
	Drain(dst []probes.Frame) []probes.Frame
	Closed() bool
}

// feedReadyMsg: the live feed signalled that frames are pending.
type feedReadyMsg struct{}

// renderTickMsg: the coalescing timer fired; draw what arrived since the
// last frame. Armed only when frames arrive, so an idle dashboard has no
// timer running.
type renderTickMsg struct{}

// liveDriver feeds the frames of a run in progress into the store as the
// trainer publishes them.
type liveDriver struct {
	feed      feedSource
	data      *store
	buf       []probes.Frame
	tickArmed bool // a renderTickMsg is scheduled
	ended     bool // the feed was closed
	held      bool // the feed signalled while paused; drained on resume
}

// waitFeed blocks (in its own goroutine, costing no CPU) until the feed has
// frames. It is the only thing the live dashboard waits on while idle.
func waitFeed(f feedSource) tea.Cmd {
	return func() tea.Msg {
		<-f.Ready()
		return feedReadyMsg{}
	}
}

func renderTick() tea.Cmd {
	return tea.Tick(frameInterval, func(time.Time) tea.Msg { return renderTickMsg{} })
}

// Init waits for the first frames.
func (l *liveDriver) Init() tea.Cmd { return waitFeed(l.feed) }

// Update handles the driver's messages; others are ignored.
func (l *liveDriver) Update(msg tea.Msg, pb playback) (tea.Cmd, driverNews) {
	switch msg.(type) {
	case feedReadyMsg:
		return l.drain(pb.paused)
	case renderTickMsg:
		l.tickArmed = false
		return nil, driverNews{redraw: !pb.paused}
	}
	return nil, driverNews{}
}

// Resume takes the frames that arrived while paused.
func (l *liveDriver) Resume(playback) (tea.Cmd, driverNews) {
	if !l.held {
		return nil, driverNews{}
	}
	l.held = false
	return l.drain(false)
}

// Seek does nothing: a live run cannot be moved.
func (l *liveDriver) Seek(int) tea.Cmd { return nil }

// Ended reports whether the feed was closed.
func (l *liveDriver) Ended() bool { return l.ended }

// Crashed is false: a live run's end is seen as it happens.
func (l *liveDriver) Crashed() bool { return false }

// dropped is the feed's dropped-frame count when the feed keeps one
// (*probes.Feed does), else 0.
func (l *liveDriver) dropped() int {
	if d, ok := l.feed.(interface{ Dropped() int }); ok {
		return d.Dropped()
	}
	return 0
}

// foldedFeed is a feed that carries its producer's standings
// (*probes.Feed after PushFolded): the dashboard draws on that one fold.
type foldedFeed interface {
	DrainFolded(dst []probes.Frame, st *probes.Standings) ([]probes.Frame, bool)
}

// takeFrames drains the feed into dst. Where the producer folded the
// Frames (the writer, in a live run), its standings replace the store's
// and the store stops folding: a Frame is folded once in the process, and
// the ranking counts the Frames the lossy feed dropped.
func (l *liveDriver) takeFrames(dst []probes.Frame) []probes.Frame {
	f, ok := l.feed.(foldedFeed)
	if !ok {
		return l.feed.Drain(dst)
	}
	dst, folded := f.DrainFolded(dst, l.data.tally)
	l.data.folded = l.data.folded || folded
	return dst
}

// drain takes the feed's frames. The render tick is armed only here, so
// with no frames arriving nothing but the blocked waitFeed is outstanding.
func (l *liveDriver) drain(paused bool) (tea.Cmd, driverNews) {
	if paused && !l.feed.Closed() {
		// Paused: leave the frames in the feed (it coalesces plain frames
		// and keeps alerts, evals and status changes), so the screen stays
		// exactly as it was, whatever key is pressed, until space.
		l.held = true
		return nil, driverNews{}
	}
	l.buf = l.takeFrames(l.buf[:0])
	for i := range l.buf {
		l.data.add(&l.buf[i])
	}
	n := len(l.buf)
	clear(l.buf) // drop references to the frames' slices
	var cmds []tea.Cmd
	var news driverNews
	if n > 0 && !l.tickArmed {
		l.tickArmed = true
		cmds = append(cmds, renderTick())
	}
	if l.feed.Closed() {
		// Close signals Ready once more and no frame follows it: everything
		// is drained, stop waiting.
		l.ended = true
		news = driverNews{redraw: true, end: true}
	} else {
		cmds = append(cmds, waitFeed(l.feed))
	}
	return tea.Batch(cmds...), news
}
