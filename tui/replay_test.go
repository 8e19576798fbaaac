package tui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// drive runs cmd and every Cmd the model returns, synchronously, feeding
// their messages to Update, until none is left, stop() holds, or limit
// messages were handled. It returns the Cmds still pending (not run).
func drive(t *testing.T, m *Model, cmd tea.Cmd, limit int, stop func() bool) []tea.Cmd {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; {
		if n >= limit || (stop != nil && stop()) {
			return queue
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		if b, ok := msg.(tea.BatchMsg); ok {
			queue = append(queue, b...)
			continue
		}
		n++
		_, next := m.Update(msg)
		queue = append(queue, next)
	}
	return nil
}

func pending(cmds []tea.Cmd) int {
	n := 0
	for _, c := range cmds {
		if c != nil {
			n++
		}
	}
	return n
}

func newReplayFixture(steps int, opt Options) (*Model, *sliceSource) {
	meta := fixtureMeta(3, 4, steps)
	src := &sliceSource{meta: meta, frames: fixtureFrames(meta, steps)}
	m := NewReplay(src, opt).(*Model)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return m, src
}

// TestReplayLandsOnSummary: a replay that reads the whole of a finished
// run shows its Summary, once: the screen can be left again.
func TestReplayLandsOnSummary(t *testing.T) {
	m, _ := newReplayFixture(200, Options{Speed: 64})
	drive(t, m, m.Init(), 1000, nil)
	if m.st.Screen != ScreenSummary {
		t.Fatalf("finished replay on %s, want Summary", m.st.Screen.Title())
	}
	m.Update(keyPress("1"))
	_, cmd := m.Update(keyPress("G"))
	drive(t, m, cmd, 1000, nil)
	if m.st.Screen != ScreenOverview {
		t.Fatalf("landed twice: %s", m.st.Screen.Title())
	}
	// A screen the user chose is not taken away at the end.
	m, _ = newReplayFixture(200, Options{Speed: 64})
	m.Update(keyPress("5"))
	drive(t, m, m.Init(), 1000, nil)
	if m.st.Screen != ScreenGradients {
		t.Fatalf("the end moved the user from Gradients to %s", m.st.Screen.Title())
	}
}

func TestReplayPlaysToEndThenIdles(t *testing.T) {
	m, src := newReplayFixture(200, Options{Speed: 64})
	left := drive(t, m, m.Init(), 1000, nil)
	if pending(left) != 0 {
		t.Fatalf("replay still scheduling work at EOF")
	}
	if m.data.frames != len(src.frames) || m.replay.State() != replayAtEnd || m.data.step != 200 {
		t.Fatalf("frames=%d/%d eof=%v step=%d", m.data.frames, len(src.frames), m.replay.State() == replayAtEnd, m.data.step)
	}
	if len(src.seeks) != 0 {
		t.Fatalf("plain replay seeked: %v", src.seeks)
	}
	if !strings.Contains(m.View().Content, "replay ×64") {
		t.Fatalf("header lacks the replay mode:\n%s", m.View().Content)
	}
}

// TestReplayPaced: at ×1 a tick releases only the frames recorded within
// one frame interval (20 ms/step in the fixture → 2–3 steps per 50 ms).
func TestReplayPaced(t *testing.T) {
	m, _ := newReplayFixture(200, Options{Speed: 1})
	drive(t, m, m.Init(), 3, nil)
	if m.data.step > 5 {
		t.Fatalf("after start and one tick the replay is at step %d, want ≤ 5", m.data.step)
	}
}

func TestReplaySeekBackwardResetsAndRereads(t *testing.T) {
	m, src := newReplayFixture(200, Options{Speed: 64})
	drive(t, m, m.Init(), 1000, nil)
	m.Update(keyPress("space")) // pause so the seek's result stays put
	_, cmd := m.Update(keyPress("["))
	stride := m.data.total / 20
	drive(t, m, cmd, 1000, nil)
	want := 200 - stride
	if len(src.seeks) != 1 || src.seeks[0] != 0 {
		t.Fatalf("backward seek called Seek(%v), want Seek(0) once", src.seeks)
	}
	if m.data.step != want-1 || m.replay.seeking() {
		t.Fatalf("after seek to %d: step=%d seeking=%v", want, m.data.step, m.replay.seeking())
	}
	// The histories hold the whole past again, nothing after the target.
	if n := m.data.variants[0].series(seriesTrainLoss).Len(); n != want-1 {
		t.Fatalf("train history has %d points, want %d", n, want-1)
	}
	// Forward seek reads on without Seek.
	_, cmd = m.Update(keyPress("]"))
	drive(t, m, cmd, 1000, nil)
	if len(src.seeks) != 1 || m.data.step != want-1+stride-1 {
		t.Fatalf("forward seek: seeks=%v step=%d", src.seeks, m.data.step)
	}
}

func TestReplayEnterJumpsToEvent(t *testing.T) {
	m, _ := newReplayFixture(200, Options{Speed: 64})
	drive(t, m, m.Init(), 1000, nil)
	m.Update(keyPress("space"))
	m.Update(keyPress("6"))
	// Events: outlier @120, overfit @180 (no adanorm with 3 variants).
	_, cmd := m.Update(keyPress("enter"))
	drive(t, m, cmd, 1000, nil)
	if m.data.step != 120 || !m.st.Paused {
		t.Fatalf("enter on the event at step 120 left the replay at step %d (paused %v)", m.data.step, m.st.Paused)
	}
	for i := range m.data.variants {
		if vt := m.data.tally.Variants[i]; vt.Step != 120 && vt.Status == probes.Running {
			t.Fatalf("variant %d at step %d, want 120", i, m.data.tally.Variants[i].Step)
		}
	}
	// The header names the event's step and variant (issue 35: it showed
	// the leading variant's step), until the replay plays on.
	if out := m.View().Content; !strings.Contains(out, "step 120 (batchnorm's event)") {
		t.Errorf("header after the jump:\n%s", out)
	}
	m.Update(keyPress("space"))
	if out := m.View().Content; strings.Contains(out, "'s event)") {
		t.Errorf("the header still names the event after the replay played on:\n%s", out)
	}
}

func TestReplayFromStartsAtStep(t *testing.T) {
	m, src := newReplayFixture(200, Options{From: 100})
	m.Update(keyPress("space"))
	drive(t, m, m.Init(), 1000, nil)
	if m.data.step != 99 || len(src.seeks) != 0 {
		t.Fatalf("--from 100: step=%d seeks=%v", m.data.step, src.seeks)
	}
	if m.data.variants[0].series(seriesTrainLoss).Len() != 99 {
		t.Fatal("--from did not load the steps before it")
	}
}

func TestReplayPausedSchedulesNothing(t *testing.T) {
	m, _ := newReplayFixture(200, Options{})
	m.Update(keyPress("space"))
	left := drive(t, m, m.Init(), 100, nil)
	if pending(left) != 0 {
		t.Fatal("paused replay kept ticking")
	}
	_, cmd := m.Update(replayTickMsg{gen: m.replay.gen})
	if cmd != nil {
		t.Fatal("a tick while paused read frames")
	}
}

func TestReplayFollow(t *testing.T) {
	meta := fixtureMeta(2, 2, 100)
	src := &sliceSource{meta: meta, frames: fixtureFrames(meta, 100), limit: 60}
	m := NewReplay(src, Options{Follow: true, Speed: 64}).(*Model)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	left := drive(t, m, m.Init(), 1000, func() bool { return m.replay.following() })
	if !m.replay.following() || m.data.frames != 60 {
		t.Fatalf("following=%v frames=%d", m.replay.following(), m.data.frames)
	}
	if !strings.Contains(m.View().Content, "following") {
		t.Fatalf("header does not say following:\n%s", m.View().Content)
	}
	// The writer appends; the next poll (≤ 1 s) shows the new frames at once.
	src.limit = 0
	drive(t, m, tea.Batch(left...), 4, func() bool { return m.data.frames == 200 })
	if m.data.frames != 200 {
		t.Fatalf("follow poll read %d frames, want 200", m.data.frames)
	}
	if followPoll > 1e9 {
		t.Fatal("follow poll slower than 1 s")
	}
}

type errSource struct{ sliceSource }

func (e *errSource) Next() (probes.Frame, error) {
	if e.pos >= 5 {
		return probes.Frame{}, errors.New("run.ntr: corrupt frame at byte 1234")
	}
	return e.sliceSource.Next()
}

func TestReplayReadErrorShown(t *testing.T) {
	meta := fixtureMeta(1, 1, 50)
	src := &errSource{sliceSource{meta: meta, frames: fixtureFrames(meta, 50)}}
	m := NewReplay(src, Options{Speed: 64}).(*Model)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
	left := drive(t, m, m.Init(), 100, nil)
	if pending(left) != 0 || m.replay.err == nil {
		t.Fatalf("err=%v pending=%d", m.replay.err, pending(left))
	}
	if !strings.Contains(m.View().Content, "corrupt frame at byte 1234") {
		t.Fatalf("error not shown:\n%s", m.View().Content)
	}
}

// TestReplayOneClock: pausing and resuming while a tick is scheduled must
// not start a second tick chain (it would double the replay speed).
func TestReplayOneClock(t *testing.T) {
	m, _ := newReplayFixture(200, Options{})
	drive(t, m, m.Init(), 2, nil) // start + first read; a tick is now scheduled
	if m.replay.timer != timerTick {
		t.Fatal("no tick scheduled while playing")
	}
	m.Update(keyPress("space"))
	if _, cmd := m.Update(keyPress("space")); cmd != nil {
		t.Fatal("resume scheduled a second tick while one was pending")
	}
	// The pending tick fires: one read, then exactly one new tick.
	_, cmd := m.Update(replayTickMsg{gen: m.replay.gen})
	if cmd == nil || !m.replay.reading {
		t.Fatal("tick did not read")
	}
	msg := cmd()
	_, next := m.Update(msg)
	if next == nil || m.replay.timer != timerTick {
		t.Fatal("no next tick after the read")
	}
	// A stale tick from before a seek is ignored and does not clear the flag.
	m.replay.gen++
	m.replay.timer = timerTick
	if _, cmd := m.Update(replayTickMsg{gen: m.replay.gen - 1}); cmd != nil || m.replay.timer != timerTick {
		t.Fatal("stale tick acted")
	}
}

// TestReplayHelpFits: at 80×24 the full help of a replay shows every key,
// its columns in bands rather than cut at the right edge.
func TestReplayHelpFits(t *testing.T) {
	m, _ := newReplayFixture(50, Options{NoColor: true})
	m.Update(keyPress("?"))
	out := m.View().Content
	for _, want := range []string{"filter kind/variant", "sort/reverse", "start/end", "jump to event", "next/prev screen"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}

// TestReplayGWhilePausedReadsToTheEnd (issue 35): G on a paused replay
// reads every variant's last frame: the header's step is the run's last.
func TestReplayGWhilePausedReadsToTheEnd(t *testing.T) {
	m, src := newReplayFixture(200, Options{Speed: 1})
	m.Update(keyPress("space"))
	_, cmd := m.Update(keyPress("G"))
	drive(t, m, cmd, 1000, nil)
	if m.data.step != 200 || m.data.frames != len(src.frames) {
		t.Fatalf("after G while paused: step %d, %d of %d frames; want step 200, every frame", m.data.step, m.data.frames, len(src.frames))
	}
	if out := m.View().Content; !strings.Contains(out, "step 200/200") {
		t.Errorf("header does not say step 200/200:\n%s", out)
	}
}
