package tui

import (
	"errors"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// driverAt is a replay driver in state s at step 100 of a two-variant run,
// nothing in flight or scheduled, its timers recorded instead of armed.
// The Cmds it returns are never run: the transitions alone are tested.
func driverAt(s replayState, follow bool, edit func(d *replayDriver)) (*replayDriver, *[]tea.Msg) {
	meta := fixtureMeta(2, 1, 200)
	data := newStore(meta)
	for step := 1; step <= 100; step++ {
		for v := range 2 {
			data.add(&probes.Frame{Variant: v, Step: step})
		}
	}
	var timers []tea.Msg
	d := newReplayDriver(&sliceSource{meta: meta}, data, follow, false)
	d.state, d.gen = s, 3
	if s == replaySeeking {
		d.target = 150
	}
	d.schedule = func(_ time.Duration, msg tea.Msg) tea.Cmd {
		timers = append(timers, msg)
		return func() tea.Msg { return msg }
	}
	if edit != nil {
		edit(d)
	}
	return d, &timers
}

// batchOf is a batch of the driver's generation 3 holding n frames from
// step 101 on.
func batchOf(n int, edit func(b *replayBatchMsg)) replayBatchMsg {
	b := replayBatchMsg{gen: 3}
	for i := range n {
		b.frames = append(b.frames, probes.Frame{Variant: i % 2, Step: 101 + i/2})
	}
	if edit != nil {
		edit(&b)
	}
	return b
}

func reading(d *replayDriver) { d.reading = true }

var errTest = errors.New("run.ntr: read failed")

// TestReplayTransitions: each message moves the replay driver from one
// state to the next, arming at most one timer, and tells the dashboard
// whether to redraw and whether the run's end was read.
// replayWant is a replay driver's state after one message.
type replayWant struct {
	state   replayState
	timer   replayTimer
	reading bool // a read Cmd was returned
	queued  int
	gen     int
	news    driverNews
	frames  int // frames in the store (200 before)
}

// replayTransition is one message to a driver in a given state.
type replayTransition struct {
	name   string
	state  replayState
	follow bool
	edit   func(d *replayDriver)
	msg    tea.Msg
	pb     playback
	want   replayWant
}

// replayTransitions: the driver's state machine, one row per transition.
func replayTransitions() []replayTransition {
	eof := func(b *replayBatchMsg) { b.eof, b.reached = true, true }
	ended := func(b *replayBatchMsg) { b.eof, b.reached, b.ended = true, true, true }
	reached := func(b *replayBatchMsg) { b.reached = true }
	playing := playback{speed: 2}
	paused := playback{paused: true, speed: 2}
	return []replayTransition{
		{"playing: a batch, then the next tick", replayPlaying, false, reading, batchOf(4, nil), playing,
			replayWant{replayPlaying, timerTick, false, -1, 3, driverNews{redraw: true}, 204}},
		{"playing: a full batch reads on at once", replayPlaying, false, reading, batchOf(batchMax, nil), playing,
			replayWant{replayPlaying, timerNone, true, -1, 3, driverNews{redraw: true}, 200 + batchMax}},
		{"playing: a full batch while paused waits", replayPlaying, false, reading, batchOf(batchMax, nil), paused,
			replayWant{replayPlaying, timerNone, false, -1, 3, driverNews{redraw: true}, 200 + batchMax}},
		{"playing: EOF ends a plain replay", replayPlaying, false, reading, batchOf(2, eof), playing,
			replayWant{replayAtEnd, timerNone, false, -1, 3, driverNews{redraw: true}, 202}},
		{"playing: EOF of an ended run lands", replayPlaying, false, reading, batchOf(0, ended), playing,
			replayWant{replayAtEnd, timerNone, false, -1, 3, driverNews{redraw: true, end: true}, 200}},
		{"playing: EOF of a followed file polls", replayPlaying, true, reading, batchOf(0, eof), playing,
			replayWant{replayFollowing, timerPoll, false, -1, 3, driverNews{redraw: true}, 200}},
		{"following: appended frames, then the next poll", replayFollowing, true, reading, batchOf(6, eof), playing,
			replayWant{replayFollowing, timerPoll, false, -1, 3, driverNews{redraw: true}, 206}},
		{"following: the writer ended, no poll", replayFollowing, true, reading, batchOf(0, ended), playing,
			replayWant{replayFollowing, timerNone, false, -1, 3, driverNews{redraw: true, end: true}, 200}},
		{"following: a full poll reads on", replayFollowing, true, reading, batchOf(batchMax, nil), playing,
			replayWant{replayFollowBehind, timerNone, true, -1, 3, driverNews{redraw: true}, 200 + batchMax}},
		{"behind: the rest, then a poll", replayFollowBehind, true, reading, batchOf(2, eof), playing,
			replayWant{replayFollowing, timerPoll, false, -1, 3, driverNews{redraw: true}, 202}},
		{"seeking: short of the target reads on, no redraw", replaySeeking, false, reading, batchOf(4, nil), playing,
			replayWant{replaySeeking, timerNone, true, -1, 3, driverNews{}, 204}},
		{"seeking: reached, then plays", replaySeeking, false, reading, batchOf(4, reached), playing,
			replayWant{replayPlaying, timerTick, false, -1, 3, driverNews{redraw: true}, 204}},
		{"seeking: reached while paused schedules nothing", replaySeeking, false, reading, batchOf(4, reached), paused,
			replayWant{replayPlaying, timerNone, false, -1, 3, driverNews{redraw: true}, 204}},
		{"seeking past the end of a followed file waits there", replaySeeking, true, reading, batchOf(4, eof), playing,
			replayWant{replayFollowing, timerPoll, false, -1, 3, driverNews{redraw: true}, 204}},
		{"catching up: EOF follows", replayCatchingUp, true, reading, batchOf(4, eof), playing,
			replayWant{replayFollowing, timerPoll, false, -1, 3, driverNews{redraw: true}, 204}},
		{"catching up: a seek queued behind the batch replaces it", replayCatchingUp, true,
			func(d *replayDriver) { d.reading, d.queued = true, 500 }, batchOf(4, nil), playing,
			replayWant{replaySeeking, timerNone, true, -1, 4, driverNews{redraw: true}, 204}},
		{"a stale batch is dropped", replayPlaying, false, reading, batchOf(4, func(b *replayBatchMsg) { b.gen = 2 }), playing,
			replayWant{replayPlaying, timerTick, false, -1, 3, driverNews{}, 200}},
		{"a read error stops the driver", replayPlaying, false, reading, batchOf(0, func(b *replayBatchMsg) { b.err = errTest }), playing,
			replayWant{replayPlaying, timerNone, false, -1, 3, driverNews{redraw: true}, 200}},
		{"tick: reads what is due", replayPlaying, false, func(d *replayDriver) { d.timer = timerTick }, replayTickMsg{gen: 3}, playing,
			replayWant{replayPlaying, timerNone, true, -1, 3, driverNews{}, 200}},
		{"tick while paused reads nothing", replayPlaying, false, func(d *replayDriver) { d.timer = timerTick }, replayTickMsg{gen: 3}, paused,
			replayWant{replayPlaying, timerNone, false, -1, 3, driverNews{}, 200}},
		{"a stale tick keeps the new one", replayPlaying, false, func(d *replayDriver) { d.timer = timerTick }, replayTickMsg{gen: 2}, playing,
			replayWant{replayPlaying, timerTick, false, -1, 3, driverNews{}, 200}},
		{"poll: reads what was appended", replayFollowing, true, func(d *replayDriver) { d.timer = timerPoll }, followPollMsg{gen: 3}, playing,
			replayWant{replayFollowing, timerNone, true, -1, 3, driverNews{}, 200}},
		{"poll while paused reads nothing", replayFollowing, true, func(d *replayDriver) { d.timer = timerPoll }, followPollMsg{gen: 3}, paused,
			replayWant{replayFollowing, timerNone, false, -1, 3, driverNews{}, 200}},
	}
}

func TestReplayTransitions(t *testing.T) {
	for _, tc := range replayTransitions() {
		t.Run(tc.name, func(t *testing.T) {
			d, timers := driverAt(tc.state, tc.follow, tc.edit)
			clock, before := d.clock, d.timer
			cmd, news := d.Update(tc.msg, tc.pb)
			got := replayWant{d.state, d.timer, d.reading, d.queued, d.gen, news, d.data.frames}
			if got != tc.want {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
			armed := len(*timers)
			if wantArmed := before == timerNone && got.timer != timerNone; armed != map[bool]int{true: 1}[wantArmed] {
				t.Fatalf("%d timers armed, want one: %v", armed, wantArmed)
			}
			if (cmd != nil) != (got.reading || armed == 1) {
				t.Fatalf("Cmd returned %v, reading %v, %d timers armed", cmd != nil, got.reading, armed)
			}
			if _, tick := tc.msg.(replayTickMsg); tick && got.reading && d.clock-clock != 2*frameInterval {
				t.Fatalf("tick at ×2 moved the clock by %v", d.clock-clock)
			}
		})
	}
}

// TestReplaySeekRequests: a seek while a read is in flight is queued (the
// latest wins); otherwise it starts at once, backward by re-reading from
// the start, forward by reading on; either drops the scheduled timer.
func TestReplaySeekRequests(t *testing.T) {
	for _, tc := range []struct {
		name    string
		edit    func(d *replayDriver)
		target  int
		queued  int
		state   replayState
		gen     int
		frames  int // in the store after the request
		timerUp bool
	}{
		{"queued behind a read", func(d *replayDriver) { d.reading, d.queued, d.timer = true, 20, timerTick }, 40, 40, replayPlaying, 3, 200, true},
		{"backward resets the store", func(d *replayDriver) { d.timer = timerTick }, 40, -1, replaySeeking, 4, 0, false},
		{"forward reads on", func(d *replayDriver) { d.timer = timerTick }, 150, -1, replaySeeking, 4, 200, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := driverAt(replayPlaying, false, tc.edit)
			cmd := d.Seek(tc.target)
			if d.queued != tc.queued || d.state != tc.state || d.gen != tc.gen || d.data.frames != tc.frames || (d.timer != timerNone) != tc.timerUp {
				t.Fatalf("queued=%d state=%d gen=%d frames=%d timer=%d", d.queued, d.state, d.gen, d.data.frames, d.timer)
			}
			if (cmd != nil) != (tc.queued < 0) || (tc.queued < 0 && (!d.reading || d.target != tc.target)) {
				t.Fatalf("cmd=%v reading=%v target=%d", cmd != nil, d.reading, d.target)
			}
		})
	}
}

// TestReplayResume: what unpausing schedules in each state: the next tick
// while there is more to play, a poll while following a run still being
// written, nothing at the end, during a seek or with a timer already armed.
func TestReplayResume(t *testing.T) {
	for _, tc := range []struct {
		name  string
		state replayState
		edit  func(d *replayDriver)
		want  replayTimer
	}{
		{"playing ticks", replayPlaying, nil, timerTick},
		{"behind the writer ticks", replayFollowBehind, nil, timerTick},
		{"following polls", replayFollowing, nil, timerPoll},
		{"following an ended run waits", replayFollowing, func(d *replayDriver) { d.srcEnded = true }, timerNone},
		{"at the end waits", replayAtEnd, nil, timerNone},
		{"seeking waits for its batch", replaySeeking, nil, timerNone},
		{"catching up waits for its batch", replayCatchingUp, nil, timerNone},
		{"a read in flight resumes on its batch", replayPlaying, reading, timerNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, timers := driverAt(tc.state, true, tc.edit)
			cmd, _ := d.Resume(playback{speed: 1})
			if d.timer != tc.want || (cmd != nil) != (tc.want != timerNone) {
				t.Fatalf("timer=%d cmd=%v, want timer %d", d.timer, cmd != nil, tc.want)
			}
			// Resuming again (a quick pause and resume) arms no second clock.
			if cmd, _ := d.Resume(playback{speed: 1}); cmd != nil || len(*timers) > 1 {
				t.Fatalf("second resume armed another timer (%d in all)", len(*timers))
			}
		})
	}
}

// TestModeWords: the header's badge reads the driver's state.
func TestModeWords(t *testing.T) {
	for _, tc := range []struct {
		name   string
		state  replayState
		ended  bool
		paused bool
		want   string
	}{
		{"playing", replayPlaying, false, false, "replay ×2"},
		{"playing paused", replayPlaying, false, true, "replay ×2 · paused"},
		{"at the end", replayAtEnd, true, false, "replay ×2"},
		{"seeking paused", replaySeeking, false, true, "replay ×2 · paused · seeking → 150"},
		{"catching up", replayCatchingUp, false, false, "catching up"},
		{"following", replayFollowing, false, false, "following"},
		{"behind the writer", replayFollowBehind, false, true, "following · paused"},
		{"following an ended run", replayFollowing, true, false, "following (ended)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := driverAt(tc.state, true, func(d *replayDriver) { d.srcEnded = tc.ended })
			m := &Model{replay: d, common: common{st: NewState(true, 2)}}
			m.st.Paused = tc.paused
			if got := m.modeWords(); got != tc.want {
				t.Fatalf("mode %q, want %q", got, tc.want)
			}
		})
	}
	live := newLive(fixtureMeta(1, 1, 10), newFakeFeed(), Options{})
	if got := live.modeWords(); got != "live" {
		t.Fatalf("live mode %q", got)
	}
	live.live.ended = true
	if got := live.modeWords(); got != "live (ended)" {
		t.Fatalf("ended live mode %q", got)
	}
}
