package tui

import (
	"math"
	"time"

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

// Crasher is optionally implemented by an Ender that can tell, once Ended,
// a run whose writer is gone without an end record (killed or crashed)
// from one that ended normally: the dashboard then says so instead of
// showing the variants "running".
type Crasher interface {
	Crashed() bool
}

// replayState is where the replay driver stands. The header says it in
// words; resume and every batch read from it what to do next.
type replayState int

const (
	replayPlaying      replayState = iota // paced by the replay clock
	replaySeeking                         // reading without pacing up to target
	replayCatchingUp                      // follow: reading the file's history without pacing or drawing
	replayFollowing                       // follow: at the writer's end, polling for appended frames
	replayFollowBehind                    // follow: a poll filled a batch; more appended frames are due
	replayAtEnd                           // plain replay: read to the end; only a seek moves it
)

// replayTimer is the one timer the replay driver may have scheduled: at
// most one exists, so pausing and resuming quickly cannot start a second
// clock (which would double the replay speed).
type replayTimer int

const (
	timerNone replayTimer = iota
	timerTick             // replayTickMsg: advance the clock
	timerPoll             // followPollMsg: look for appended frames
)

// replayTickMsg advances the replay clock by one tick. gen discards ticks
// scheduled before a seek.
type replayTickMsg struct{ gen int }

// followPollMsg asks the replay source for frames appended since EOF.
type followPollMsg struct{ gen int }

// replayBatchMsg carries frames read from the replay source by a Cmd.
type replayBatchMsg struct {
	gen    int
	frames []probes.Frame
	eof    bool // the source has nothing more for now
	ended  bool // at EOF the source reported Ended: nothing more will come
	// crashed: ended, and the writer is gone without an end record
	crashed bool
	err     error // a read error other than io.EOF
	// reached: a seek batch read up to its target step (or EOF).
	reached bool
}

// replayDriver feeds a recorded run into the store: paced by a clock
// scaled by the speed, or unpaced while it seeks, catches up with a
// followed file, or follows its writer. Its Update handles only its own
// messages and returns the Cmds that produce the next ones.
type replayDriver struct {
	rd     *reader
	data   *store
	follow bool // Options.Follow: poll at EOF instead of stopping

	state  replayState
	target int // replaySeeking, replayCatchingUp: the step sought
	wait   int // replaySeeking: the variant whose frame at target ends the seek, -1 any
	// jumped is where the last jump to an event landed (its variant and
	// step): the header shows that step, not the leading variant's, until
	// the replay moves on. variant -1: none.
	jumped  struct{ variant, step int }
	queued  int  // a seek asked for while a read was in flight, -1 none
	qwait   int  // the queued seek's wait
	gen     int  // bumped by every seek; stale ticks, polls and batches are dropped
	reading bool // a read Cmd is in flight
	timer   replayTimer
	// srcEnded: the source reported Ended at EOF, nothing more will come.
	// It outlives seeks: the run stays ended while the past is re-read.
	srcEnded bool
	// srcCrashed: ended without an end record (Crasher): killed or crashed.
	srcCrashed bool
	clock      time.Duration // replay clock, in recorded time
	err        error
	// schedule delivers msg after d: tea.Tick; tests swap it to see the
	// timers the replay arms without sleeping through them.
	schedule func(d time.Duration, msg tea.Msg) tea.Cmd
}

func newReplayDriver(src ReplaySource, data *store, follow, catchUp bool) *replayDriver {
	d := &replayDriver{rd: &reader{src: src}, data: data, follow: follow, queued: -1, wait: -1, qwait: -1, schedule: tick}
	d.jumped.variant = -1
	if catchUp {
		d.state, d.target = replayCatchingUp, math.MaxInt // so the first View says so
	}
	return d
}

func tick(d time.Duration, msg tea.Msg) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

// State is where the driver stands.
func (d *replayDriver) State() replayState { return d.state }

// seeking reports whether the driver reads unpaced towards a step.
func (d *replayDriver) seeking() bool {
	return d.state == replaySeeking || d.state == replayCatchingUp
}

// following reports whether follow mode caught up with the writer.
func (d *replayDriver) following() bool {
	return d.state == replayFollowing || d.state == replayFollowBehind
}

// Ended reports whether the source said the run has ended.
func (d *replayDriver) Ended() bool { return d.srcEnded }

// Crashed reports whether the source ended without an end record.
func (d *replayDriver) Crashed() bool { return d.srcCrashed }

// Init starts reading: a seek to --from, the catch-up of a followed file,
// or the paced replay.
func (d *replayDriver) Init(from int) tea.Cmd {
	switch {
	case from > 0:
		return d.startSeek(from, replaySeeking)
	case d.state == replayCatchingUp:
		return d.startCatchUp()
	}
	return d.readCmd(d.clock, -1)
}

// Update handles the driver's messages; others are ignored.
func (d *replayDriver) Update(msg tea.Msg, pb playback) (tea.Cmd, driverNews) {
	switch msg := msg.(type) {
	case replayTickMsg:
		if msg.gen != d.gen {
			return nil, driverNews{}
		}
		d.timer = timerNone
		if pb.paused || d.reading || d.seeking() {
			return nil, driverNews{}
		}
		d.clock += time.Duration(float64(frameInterval) * pb.speed)
		return d.readCmd(d.clock, -1), driverNews{}
	case followPollMsg:
		if msg.gen != d.gen {
			return nil, driverNews{}
		}
		d.timer = timerNone
		if d.reading || pb.paused {
			return nil, driverNews{}
		}
		return d.readCmd(math.MaxInt64, -1), driverNews{}
	case replayBatchMsg:
		return d.onBatch(msg, pb.paused)
	}
	return nil, driverNews{}
}

// Seek moves the replay to step target, or queues the seek behind the read
// in flight (a later seek replaces a queued one).
func (d *replayDriver) Seek(target int) tea.Cmd {
	return d.SeekFor(target, -1)
}

// SeekFor is Seek that ends only once variant wait's frame at target (or
// after) is read (-1: any variant): enter on an event shows the event.
func (d *replayDriver) SeekFor(target, wait int) tea.Cmd {
	if d.reading {
		d.queued, d.qwait = target, wait
		return nil
	}
	d.wait = wait
	return d.startSeek(target, replaySeeking)
}

// Resume restarts the replay clock after a pause.
func (d *replayDriver) Resume(pb playback) (tea.Cmd, driverNews) {
	d.jumped.variant = -1
	return d.resume(pb.paused), driverNews{}
}

// startSeek moves the replay to target: backward resets the histories and
// re-reads from the start (the charts show the whole past), forward reads
// on. Either way frames are ingested without pacing.
func (d *replayDriver) startSeek(target int, s replayState) tea.Cmd {
	d.gen++ // drops the scheduled tick or poll of the old generation
	d.timer = timerNone
	d.jumped.variant = -1
	d.state, d.target = s, target
	if target <= d.data.step {
		d.data.reset()
		d.clock = 0
		return d.seekCmd(target)
	}
	return d.readCmd(math.MaxInt64, target)
}

// startCatchUp begins following a run: everything already in the source is
// ingested without pacing, as a forward seek to no step in particular, in
// batchMax-frame Cmds (keys are handled between them) and without drawing;
// at EOF the dashboard draws once and follows the writer.
func (d *replayDriver) startCatchUp() tea.Cmd {
	d.wait = -1
	return d.startSeek(math.MaxInt, replayCatchingUp)
}

// resume schedules what comes next once nothing is in flight: the next
// tick while playing, the next poll while following a run still written.
func (d *replayDriver) resume(paused bool) tea.Cmd {
	if paused || d.reading || d.seeking() {
		return nil
	}
	switch d.state {
	case replayAtEnd:
		return nil
	case replayFollowing:
		if d.srcEnded {
			return nil
		}
		return d.arm(timerPoll, followPoll, followPollMsg{gen: d.gen})
	}
	return d.arm(timerTick, frameInterval, replayTickMsg{gen: d.gen})
}

func (d *replayDriver) arm(t replayTimer, after time.Duration, msg tea.Msg) tea.Cmd {
	if d.timer != timerNone {
		return nil
	}
	d.timer = t
	return d.schedule(after, msg)
}

// onBatch ingests a batch and moves the state on: a seek reads on until it
// reaches its target; EOF ends a plain replay and makes a followed one
// poll; a seek queued behind the batch starts now.
func (d *replayDriver) onBatch(msg replayBatchMsg, paused bool) (tea.Cmd, driverNews) {
	var news driverNews
	d.reading = false
	if msg.gen == d.gen {
		seeking := d.seeking()
		for i := range msg.frames {
			d.data.add(&msg.frames[i])
		}
		if len(msg.frames) > 0 && !seeking {
			news.redraw = true
		}
		if msg.err != nil {
			d.err = msg.err
			news.redraw = true
			return nil, news
		}
		if msg.ended {
			d.srcEnded, d.srcCrashed = true, msg.crashed
			news.redraw = true
			if !seeking || msg.reached {
				news.end = true
			}
		}
		if seeking && d.queued < 0 {
			if !msg.reached {
				return d.readCmd(math.MaxInt64, d.target), news
			}
			// Reached the target, or the end of what exists: a target past
			// the end waits there (following) instead of reading on.
			seeking = false
			d.clock = d.rd.lastTime
			news.redraw = true
			if d.wait >= 0 {
				d.jumped.variant, d.jumped.step = d.wait, d.target
			}
		}
		if !seeking {
			d.settle(msg.eof, &news)
		}
	}
	if d.queued >= 0 {
		// A seek asked for during a long catch-up or seek replaces it.
		t := d.queued
		d.queued, d.wait, d.qwait = -1, d.qwait, -1
		news.redraw = true
		return d.startSeek(t, replaySeeking), news
	}
	if !msg.eof && len(msg.frames) == batchMax {
		// More frames are already due: keep reading without waiting a tick.
		if !paused {
			return d.readCmd(d.clock, -1), news
		}
		return nil, news
	}
	return d.resume(paused), news
}

// settle is the state after a batch outside a seek (or the one that ended
// it): more to read, or EOF, where a plain replay stops and a followed one
// polls.
func (d *replayDriver) settle(eof bool, news *driverNews) {
	switch {
	case !eof && d.following():
		d.state = replayFollowBehind
	case !eof:
		d.state = replayPlaying
	case d.follow:
		if !d.following() {
			news.redraw = true
		}
		d.state = replayFollowing
	default:
		d.state = replayAtEnd
		if d.srcEnded || d.data.allStopped() {
			// A plain replay read the whole run and every variant stopped:
			// the result is what is left to look at.
			news.end = true
		}
	}
}

// readCmd reads frames due by the replay clock (until) or, for a seek,
// those before step target. Following reads everything appended.
func (d *replayDriver) readCmd(until time.Duration, target int) tea.Cmd {
	if d.following() {
		until = math.MaxInt64
	}
	d.reading = true
	rd, gen, wait := d.rd, d.gen, -1
	if target >= 0 {
		wait = d.wait
	}
	return func() tea.Msg { return rd.read(gen, until, target, wait) }
}

func (d *replayDriver) seekCmd(target int) tea.Cmd {
	d.reading = true
	rd, gen, wait := d.rd, d.gen, d.wait
	return func() tea.Msg {
		if err := rd.seek(0); err != nil {
			return replayBatchMsg{gen: gen, err: err}
		}
		return rd.read(gen, math.MaxInt64, target, wait)
	}
}
