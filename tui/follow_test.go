package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// endedSource is a sliceSource whose run has (or has not) ended: it
// implements Ender.
type endedSource struct {
	sliceSource
	ended bool
}

func (e *endedSource) Ended() bool { return e.ended }

// timerMsg is what a replay tick or follow poll delivers under trace: the
// message the model scheduled, and after how long.
type timerMsg struct {
	d   time.Duration
	msg tea.Msg
}

// trace runs cmd and the Cmds the model returns, synchronously, until stop
// holds, nothing is left, or limit messages were handled. It returns the
// messages handled (batches unpacked) and the Cmds left unrun. Unlike
// drive it never sleeps through a tick or poll the model schedules: each
// is left pending (as a Cmd returning its message), so a test sees whether
// the model paced or polled.
func trace(t *testing.T, m *Model, cmd tea.Cmd, limit int, stop func() bool) (msgs []tea.Msg, left []tea.Cmd) {
	t.Helper()
	m.replay.schedule = func(d time.Duration, msg tea.Msg) tea.Cmd {
		return func() tea.Msg { return timerMsg{d, msg} }
	}
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 && len(msgs) < limit && (stop == nil || !stop()) {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		switch msg := msg.(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
			continue
		case timerMsg:
			left = append(left, func() tea.Msg { return msg.msg })
			continue
		}
		msgs = append(msgs, msg)
		_, next := m.Update(msg)
		queue = append(queue, next)
	}
	return msgs, append(left, queue...)
}

// TestFollowCatchesUpWithoutPacing: with --follow the file's history is read
// at once in batchMax-frame messages (no replay tick between them), without
// redrawing until the end, and then the header says following.
func TestFollowCatchesUpWithoutPacing(t *testing.T) {
	const steps = 5000 // × 2 variants = 10,000 frames
	for _, tc := range []struct {
		name  string
		speed float64
	}{{"x1", 1}, {"x0.25", 0.25}, {"x64", 64}} {
		t.Run(tc.name, func(t *testing.T) {
			meta := fixtureMeta(2, 2, steps)
			src := &sliceSource{meta: meta, frames: fixtureFrames(meta, steps)}
			if len(src.frames) != 10000 {
				t.Fatalf("fixture has %d frames, want 10000", len(src.frames))
			}
			m := NewReplay(src, Options{Follow: true, Speed: tc.speed}).(*Model)
			m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			init := m.Init()
			if v := m.View().Content; !strings.Contains(v, "catching up") {
				t.Fatalf("header during catch-up:\n%s", v)
			}
			var batches int
			msgs, left := trace(t, m, init, 100, func() bool {
				if m.dirty && !m.replay.following() && m.data.frames > 0 {
					t.Fatalf("screen redrawn during catch-up at %d frames", m.data.frames)
				}
				return false
			})
			for _, msg := range msgs {
				switch b := msg.(type) {
				case replayTickMsg:
					t.Fatal("catch-up waited for a replay tick")
				case replayBatchMsg:
					batches++
					if len(b.frames) > batchMax {
						t.Fatalf("one message carried %d frames (max %d)", len(b.frames), batchMax)
					}
				}
			}
			// 10,000 frames in ⌈10000/4096⌉ = 3 batches (plus the background
			// colour request's message).
			if want := (len(src.frames) + batchMax - 1) / batchMax; batches > want+1 || len(msgs) > want+3 {
				t.Fatalf("catch-up took %d batches / %d messages, want ≤ %d / %d", batches, len(msgs), want+1, want+3)
			}
			if m.data.frames != len(src.frames) || m.data.step != steps || !m.replay.following() || m.replay.State() == replayCatchingUp {
				t.Fatalf("frames=%d step=%d following=%v catchUp=%v", m.data.frames, m.data.step, m.replay.following(), m.replay.State() == replayCatchingUp)
			}
			if m.replay.timer != timerPoll || pending(left) != 1 {
				t.Fatalf("after catching up: pollPending=%v, %d Cmds left (want the one poll)", m.replay.timer == timerPoll, pending(left))
			}
			if v := m.View().Content; !strings.Contains(v, "following") || !strings.Contains(v, "step 5000") {
				t.Fatalf("header after catch-up:\n%s", v)
			}
		})
	}
}

// TestFollowCatchUpStaysResponsive: keys are handled between catch-up
// batches; a seek asked for during the catch-up replaces it, and q quits.
func TestFollowCatchUpStaysResponsive(t *testing.T) {
	meta := fixtureMeta(2, 2, 5000)
	src := &sliceSource{meta: meta, frames: fixtureFrames(meta, 5000)}
	m := NewReplay(src, Options{Follow: true, Speed: 64}).(*Model)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	trace(t, m, m.Init(), 2, nil) // colour request + first batch
	if m.replay.State() != replayCatchingUp || m.data.frames != batchMax {
		t.Fatalf("after one batch: catchUp=%v frames=%d", m.replay.State() == replayCatchingUp, m.data.frames)
	}
	if _, cmd := m.Update(keyPress("3")); m.st.Screen != ScreenCompare || !m.dirty {
		t.Fatalf("key during catch-up not handled (screen %v, cmd %v)", m.st.Screen, cmd != nil)
	}
	// g during the catch-up: back to step 0, then a paced replay.
	_, cmd := m.Update(keyPress("g"))
	if cmd != nil || m.replay.queued != 0 {
		t.Fatalf("seek during an in-flight read: cmd=%v pendSeek=%d", cmd != nil, m.replay.queued)
	}
	trace(t, m, m.replay.readCmd(0, -1), 4, func() bool { return m.replay.timer == timerTick })
	if m.replay.State() == replayCatchingUp || len(src.seeks) != 1 || m.data.step > 1 {
		t.Fatalf("g did not replace the catch-up: catchUp=%v seeks=%v step=%d", m.replay.State() == replayCatchingUp, src.seeks, m.data.step)
	}
	if _, cmd := m.Update(keyPress("q")); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("q during replay did not quit")
	}
}

// TestFollowEnded: a source that reports Ended at EOF is not polled any
// more and the header says so; one still being written keeps one poll.
func TestFollowEnded(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ended     bool
		wantPolls int
		wantMode  string
	}{
		{"still written", false, 1, " following "},
		{"ended", true, 0, " following (ended) "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta := fixtureMeta(2, 2, 100)
			src := &endedSource{sliceSource{meta: meta, frames: fixtureFrames(meta, 100)}, tc.ended}
			m := NewReplay(src, Options{Follow: true}).(*Model)
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
			_, left := trace(t, m, m.Init(), 100, nil)
			if !m.replay.following() || m.data.frames != 200 {
				t.Fatalf("following=%v frames=%d", m.replay.following(), m.data.frames)
			}
			if pending(left) != tc.wantPolls || (m.replay.timer == timerPoll) != (tc.wantPolls == 1) {
				t.Fatalf("%d Cmds left, pollPending=%v; want %d polls", pending(left), m.replay.timer == timerPoll, tc.wantPolls)
			}
			if v := m.View().Content; !strings.Contains(v, tc.wantMode) {
				t.Fatalf("header lacks %q:\n%s", tc.wantMode, v)
			}
			// Unpausing an ended run schedules nothing either.
			m.Update(keyPress("space"))
			_, cmd := m.Update(keyPress("space"))
			if tc.ended && cmd != nil {
				t.Fatal("resume polled an ended run")
			}
		})
	}
}

// TestSeekPastEOFWaits: a seek to a step beyond the data (--from, G on a
// run shorter than planned) reads to the end once and waits there:
// following with one poll when following, idle otherwise; no read loop.
func TestSeekPastEOFWaits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		follow bool
		from   int
		key    string // pressed once the start is done
	}{
		{"from past end", false, 1_000_000, ""},
		{"follow from past end", true, 1_000_000, ""},
		{"follow from maxint", true, int(^uint(0) >> 1), ""},
		{"follow G past end", true, 0, "G"},
		{"follow ] past end", true, 0, "]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta := fixtureMeta(2, 2, 400) // planned 400 steps, 100 written
			src := &sliceSource{meta: meta, frames: fixtureFrames(meta, 400), limit: 200}
			m := NewReplay(src, Options{Follow: tc.follow, From: tc.from, Speed: 64}).(*Model)
			m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			msgs, left := trace(t, m, m.Init(), 100, nil)
			if tc.key != "" {
				eofs := src.eofs
				_, cmd := m.Update(keyPress(tc.key))
				if !m.replay.seeking() {
					t.Fatalf("%s did not start a seek", tc.key)
				}
				msgs, left = trace(t, m, cmd, 100, nil)
				if src.eofs-eofs != 1 {
					t.Fatalf("the seek hit EOF %d times, want once", src.eofs-eofs)
				}
			}
			if len(msgs) > 4 || src.eofs > 2 {
				t.Fatalf("seek past EOF: %d messages, %d EOF reads (spinning?)", len(msgs), src.eofs)
			}
			if m.replay.seeking() || m.data.frames != 200 || m.replay.following() != tc.follow {
				t.Fatalf("seeking=%v frames=%d following=%v", m.replay.seeking(), m.data.frames, m.replay.following())
			}
			want := 0
			if tc.follow {
				want = 1
			}
			if pending(left) != want {
				t.Fatalf("%d Cmds left, want %d", pending(left), want)
			}
			if v := m.View().Content; strings.Contains(v, "seeking") {
				t.Fatalf("header still seeking:\n%s", v)
			}
		})
	}
}
