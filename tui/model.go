package tui

import (
	"errors"
	"io"
	"math"
	"os"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// ReplaySource is what the replay dashboard reads; *record.Reader satisfies
// it. It is only ever called from one tea.Cmd at a time, never from View.
type ReplaySource interface {
	Meta() probes.RunMeta
	Next() (probes.Frame, error) // io.EOF: nothing more for now
	Seek(step int) error         // next Next returns the first frame with Step ≥ step
}

// Ender is optionally implemented by a ReplaySource that can tell a run
// that has ended (its end record was read) from one still being written.
// When Next returns io.EOF and Ended reports true, a followed run is not
// polled any more. It is called only from the Cmd that read the EOF.
type Ender interface {
	Ended() bool
}

// Options configure a dashboard.
type Options struct {
	RunPath string  // the run file, shown in the header
	Speed   float64 // replay speed multiplier (×1 = recorded wall-clock pace); ≤0 means 1
	From    int     // replay: start at this step (the charts still show the steps before it)
	// Follow (replay): watch a file still being written. With From 0 the
	// frames already there are read at once, without pacing, and the
	// dashboard then polls for appended ones (until an Ender source ends).
	Follow  bool
	NoColor bool // monochrome styles (NO_COLOR in the environment does the same)
	// Dark selects the initial palette before the terminal reports its
	// background colour (nil = dark).
	Dark *bool
}

// Coalescing and pacing.
const (
	frameInterval = 50 * time.Millisecond  // at most 20 renders per second
	followPoll    = 500 * time.Millisecond // replay --follow: poll for new frames at EOF
	batchMax      = 4096                   // frames read per replay Cmd
	untimedPace   = 10 * time.Millisecond  // per step, for frames recorded without Elapsed
	minW, minH    = 80, 24
)

// feedSource is the part of *probes.Feed the live dashboard uses.
type feedSource interface {
	Ready() <-chan struct{}
	Drain(dst []probes.Frame) []probes.Frame
	Closed() bool
}

// feedDropped reports the live feed's dropped-frame count when the feed
// keeps one (*probes.Feed does), else 0.
func (m *Model) feedDropped() int {
	if d, ok := m.feed.(interface{ Dropped() int }); ok {
		return d.Dropped()
	}
	return 0
}

// Model is the dashboard. It is used through tea.Model by pointer: View
// caches its output and redraws only when something it shows changed.
type Model struct {
	st     State
	data   *store
	styles *Styles
	keys   keyMap
	help   help.Model
	opt    Options
	w, h   int

	// live
	feed      feedSource
	buf       []probes.Frame
	tickArmed bool
	ended     bool // the feed was closed
	feedHeld  bool // the feed signalled while paused; drained on resume
	landed    bool // the finished run was shown on the Summary screen once

	// replay
	rd        *reader
	gen       int // bumped by every seek; stale ticks and batches are dropped
	inFlight  bool
	eof       bool
	following bool // follow mode caught up with the writer
	catchUp   bool // follow mode reading the file's history without pacing
	srcEnded  bool // the source reported Ended at EOF: nothing more will come
	// tickPending / pollPending: a replay tick or follow poll is scheduled.
	// At most one of each exists, so pausing and resuming quickly cannot
	// start a second clock (which would double the replay speed).
	tickPending, pollPending bool
	clock                    time.Duration // replay clock, in recorded time
	seeking                  int           // target step of the running seek, -1 none
	pendSeek                 int           // a seek requested while a read was in flight, -1 none
	err                      error
	// schedule delivers msg after d: tea.Tick; tests swap it to see the
	// timers the replay arms without sleeping through them.
	schedule func(d time.Duration, msg tea.Msg) tea.Cmd

	// rendering
	dirty bool
	cache string
	zones []zone // clickable regions of the cached screen
}

func newModel(meta probes.RunMeta, opt Options, replay bool) *Model {
	noColor := opt.NoColor || os.Getenv("NO_COLOR") != ""
	opt.NoColor = noColor
	dark := true
	if opt.Dark != nil {
		dark = *opt.Dark
	}
	if opt.Speed <= 0 || math.IsNaN(opt.Speed) || math.IsInf(opt.Speed, 0) {
		opt.Speed = 1
	}
	m := &Model{
		st:       NewState(replay, opt.Speed),
		data:     newStore(meta),
		styles:   NewStyles(dark, noColor),
		keys:     newKeyMap(replay),
		help:     help.New(),
		opt:      opt,
		seeking:  -1,
		pendSeek: -1,
		dirty:    true,
		schedule: tick,
	}
	m.help.Styles = m.styles.Help
	return m
}

// NewReplay returns the dashboard for a recorded run.
func NewReplay(src ReplaySource, opt Options) tea.Model {
	m := newModel(src.Meta(), opt, true)
	m.rd = &reader{src: src}
	m.catchUp = opt.Follow && opt.From <= 0 // so the first View says so
	return m
}

// newLive is NewLive over the feed interface (tests use a fake feed).
func newLive(meta probes.RunMeta, feed feedSource, opt Options) *Model {
	m := newModel(meta, opt, false)
	m.feed = feed
	return m
}

// Init starts the data source.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if m.feed != nil {
		cmds = append(cmds, waitFeed(m.feed))
	} else if m.rd != nil {
		switch {
		case m.opt.From > 0:
			cmds = append(cmds, m.startSeek(m.opt.From))
		case m.catchUp:
			cmds = append(cmds, m.startCatchUp())
		default:
			cmds = append(cmds, m.readCmd(m.clock, -1))
		}
	}
	return tea.Batch(cmds...)
}

// waitFeed blocks (in its own goroutine, costing no CPU) until the feed has
// frames. It is the only thing the live dashboard waits on while idle.
func waitFeed(f feedSource) tea.Cmd {
	return func() tea.Msg {
		<-f.Ready()
		return feedReadyMsg{}
	}
}

func tick(d time.Duration, msg tea.Msg) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

func renderTick() tea.Cmd {
	return tea.Tick(frameInterval, func(time.Time) tea.Msg { return renderTickMsg{} })
}

// Update handles keys, size, the live feed and replay batches.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.dirty = true
	case tea.BackgroundColorMsg:
		m.styles = NewStyles(msg.IsDark(), m.opt.NoColor)
		m.help.Styles = m.styles.Help
		m.dirty = true
	case tea.KeyPressMsg:
		return m, m.onKey(msg.String())
	case tea.MouseClickMsg:
		if msg.Button == tea.MouseLeft {
			return m, m.onState(Click(m.st, m.zones, msg.X, msg.Y))
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp, tea.MouseWheelDown:
			return m, m.onState(Wheel(m.st, m.zones, msg.X, msg.Y, msg.Button == tea.MouseWheelUp, m.bounds()))
		}
	case feedReadyMsg:
		return m, m.onFeed()
	case renderTickMsg:
		m.tickArmed = false
		if !m.st.Paused {
			m.dirty = true
		}
	case replayTickMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		m.tickPending = false
		if m.st.Paused || m.inFlight || m.seeking >= 0 {
			return m, nil
		}
		m.clock += time.Duration(float64(frameInterval) * m.st.Speed)
		return m, m.readCmd(m.clock, -1)
	case followPollMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		m.pollPending = false
		if m.inFlight || m.st.Paused {
			return m, nil
		}
		return m, m.readCmd(math.MaxInt64, -1)
	case replayBatchMsg:
		return m, m.onBatch(msg)
	}
	return m, nil
}

func (m *Model) bounds() Bounds {
	stride := m.data.total / 20
	if stride == 0 {
		stride = max(m.data.step/20, 10)
	}
	var measured []probes.Probe
	if m.st.Screen == ScreenCompare {
		vs := make([]*variantData, len(m.data.variants))
		for i := range vs {
			vs[i] = &m.data.variants[i]
		}
		measured = visibleProbes(vs...)
	} else if m.st.Screen == ScreenLayers && len(m.data.variants) > 0 {
		measured = visibleProbes(&m.data.variants[clamp(m.st.Variant, 0, len(m.data.variants)-1)])
	}
	return Bounds{
		Variants:   len(m.data.variants),
		Layers:     len(m.data.meta.Layers),
		EventSteps: rowSteps(eventRows(m.data.events, m.st.EvKind, m.st.EvVariant)),
		Step:       m.data.step,
		LastStep:   max(m.data.total, m.data.step),
		SeekStride: stride,
		Probes:     measured,
		CellSteps:  m.cellSteps(m.w),
		Running:    m.feed != nil && !m.ended,
		SortCols:   len(summaryCols),
	}
}

func (m *Model) onKey(k string) tea.Cmd {
	return m.onState(Navigate(m.st, k, m.bounds()))
}

// onState applies the state a key or the mouse produced: quit, seek,
// resume.
func (m *Model) onState(next State) tea.Cmd {
	wasPaused := m.st.Paused
	m.st = next
	m.dirty = true
	if m.st.Quit {
		return tea.Quit
	}
	if m.rd == nil {
		if wasPaused && !m.st.Paused && m.feedHeld {
			// Frames arrived while paused: take them now.
			m.feedHeld = false
			return m.onFeed()
		}
		return nil
	}
	if m.st.SeekTo >= 0 {
		target := m.st.SeekTo
		m.st.SeekTo = -1
		if m.inFlight {
			m.pendSeek = target
			return nil
		}
		return m.startSeek(target)
	}
	if wasPaused && !m.st.Paused {
		return m.resume()
	}
	return nil
}

// onFeed drains the live feed. The render tick is armed only here, so with
// no frames arriving nothing but the blocked waitFeed is outstanding.
func (m *Model) onFeed() tea.Cmd {
	if m.st.Paused && !m.feed.Closed() {
		// Paused: leave the frames in the feed (it coalesces plain frames
		// and keeps alerts, evals and status changes), so the screen stays
		// exactly as it was, whatever key is pressed, until space.
		m.feedHeld = true
		return nil
	}
	m.buf = m.feed.Drain(m.buf[:0])
	for i := range m.buf {
		m.data.add(&m.buf[i])
	}
	n := len(m.buf)
	clear(m.buf) // drop references to the frames' slices
	var cmds []tea.Cmd
	if n > 0 && !m.tickArmed {
		m.tickArmed = true
		cmds = append(cmds, renderTick())
	}
	if m.feed.Closed() {
		// Close signals Ready once more and no frame follows it: everything
		// is drained, stop waiting.
		m.ended = true
		m.dirty = true
		m.landOnSummary()
	} else {
		cmds = append(cmds, waitFeed(m.feed))
	}
	return tea.Batch(cmds...)
}

// landOnSummary switches to the Summary screen once, when the run ends
// (the live feed closes, or a replay reads to the end of a finished run),
// from the Overview only: a screen the user chose stays put (the end can
// come just after the key that chose it).
func (m *Model) landOnSummary() {
	if m.landed || m.st.Help || m.st.Screen != ScreenOverview {
		return
	}
	m.landed = true
	m.st.Screen = ScreenSummary
}

// startSeek moves the replay to target: backward resets the histories and
// re-reads from the start (the charts show the whole past), forward reads
// on. Either way frames are ingested without pacing.
func (m *Model) startSeek(target int) tea.Cmd {
	m.gen++ // drops the scheduled tick or poll of the old generation
	m.tickPending, m.pollPending = false, false
	m.seeking = target
	m.eof, m.following, m.catchUp = false, false, false
	m.dirty = true
	if target <= m.data.step {
		m.data.reset()
		m.clock = 0
		return m.seekCmd(target)
	}
	return m.readCmd(math.MaxInt64, target)
}

// startCatchUp begins following a run: everything already in the source is
// ingested without pacing, as a forward seek to no step in particular, in
// batchMax-frame Cmds (keys are handled between them) and without drawing;
// at EOF the dashboard draws once and follows the writer.
func (m *Model) startCatchUp() tea.Cmd {
	cmd := m.startSeek(math.MaxInt)
	m.catchUp = true
	return cmd
}

// resume restarts the replay clock after a pause or a seek.
func (m *Model) resume() tea.Cmd {
	if m.st.Paused || m.inFlight || m.seeking >= 0 {
		return nil
	}
	if m.eof {
		if m.opt.Follow && !m.srcEnded {
			return m.followCmd()
		}
		return nil
	}
	return m.replayTick()
}

func (m *Model) replayTick() tea.Cmd {
	if m.tickPending {
		return nil
	}
	m.tickPending = true
	return m.schedule(frameInterval, replayTickMsg{gen: m.gen})
}

func (m *Model) followCmd() tea.Cmd {
	if m.pollPending {
		return nil
	}
	m.pollPending = true
	return m.schedule(followPoll, followPollMsg{gen: m.gen})
}

func (m *Model) onBatch(msg replayBatchMsg) tea.Cmd {
	m.inFlight = false
	if msg.gen == m.gen {
		for i := range msg.frames {
			m.data.add(&msg.frames[i])
		}
		if len(msg.frames) > 0 && m.seeking < 0 {
			m.dirty = true
		}
		if msg.err != nil {
			m.err = msg.err
			m.dirty = true
			return nil
		}
		m.eof = msg.eof
		if msg.ended {
			m.srcEnded = true
			m.dirty = true
			if m.seeking < 0 || msg.reached {
				m.landOnSummary()
			}
		}
		if m.seeking >= 0 && m.pendSeek < 0 {
			if !msg.reached {
				return m.readCmd(math.MaxInt64, m.seeking)
			}
			// Reached the target, or the end of what exists: a target past
			// the end waits there (following) instead of reading on.
			m.seeking, m.catchUp = -1, false
			m.clock = m.rd.lastTime
			m.dirty = true
		}
		if msg.eof && !m.opt.Follow && m.seeking < 0 && m.finished() {
			// A plain replay read the whole run and every variant stopped:
			// the result is what is left to look at.
			m.landOnSummary()
		}
		if msg.eof && m.opt.Follow && m.seeking < 0 && !m.following {
			m.following = true
			m.dirty = true
		}
	}
	if m.pendSeek >= 0 {
		// A seek asked for during a long catch-up or seek replaces it.
		t := m.pendSeek
		m.pendSeek = -1
		return m.startSeek(t)
	}
	if !msg.eof && len(msg.frames) == batchMax {
		// More frames are already due: keep reading without waiting a tick.
		if !m.st.Paused {
			return m.readCmd(m.clock, -1)
		}
		return nil
	}
	return m.resume()
}

// readCmd reads frames due by the replay clock (until) or, for a seek,
// those before step target.
func (m *Model) readCmd(until time.Duration, target int) tea.Cmd {
	if m.following {
		until = math.MaxInt64
	}
	m.inFlight = true
	rd, gen := m.rd, m.gen
	return func() tea.Msg { return rd.read(gen, until, target) }
}

func (m *Model) seekCmd(target int) tea.Cmd {
	m.inFlight = true
	rd, gen := m.rd, m.gen
	return func() tea.Msg {
		if err := rd.seek(0); err != nil {
			return replayBatchMsg{gen: gen, err: err}
		}
		return rd.read(gen, math.MaxInt64, target)
	}
}

// reader wraps the ReplaySource with one frame of look-ahead. It is touched
// only by the single Cmd in flight.
type reader struct {
	src      ReplaySource
	pending  *probes.Frame
	lastTime time.Duration // recorded time of the last frame handed out
}

func frameTime(f *probes.Frame) time.Duration {
	if f.Elapsed > 0 {
		return f.Elapsed
	}
	return time.Duration(f.Step) * untimedPace
}

func (r *reader) seek(step int) error {
	r.pending = nil
	r.lastTime = 0
	return r.src.Seek(step)
}

// read returns the frames due by until, or (target ≥ 0) every frame with
// Step < target, at most batchMax of them.
func (r *reader) read(gen int, until time.Duration, target int) replayBatchMsg {
	msg := replayBatchMsg{gen: gen}
	for len(msg.frames) < batchMax {
		var f probes.Frame
		if r.pending != nil {
			f, r.pending = *r.pending, nil
		} else {
			var err error
			f, err = r.src.Next()
			if errors.Is(err, io.EOF) {
				msg.eof = true
				msg.reached = true
				if e, ok := r.src.(Ender); ok {
					msg.ended = e.Ended()
				}
				return msg
			}
			if err != nil {
				msg.err = err
				return msg
			}
		}
		if target >= 0 {
			if f.Step >= target {
				r.pending = &f
				msg.reached = true
				return msg
			}
		} else if frameTime(&f) > until {
			r.pending = &f
			return msg
		}
		r.lastTime = max(r.lastTime, frameTime(&f))
		msg.frames = append(msg.frames, f)
	}
	return msg
}
