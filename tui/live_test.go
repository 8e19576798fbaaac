package tui

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/normtop/normtop/probes"
)

// cmdMsgs runs a Cmd (flattening batches) and collects the messages that
// arrive within d, or within settle after the first one (so a test waiting
// for a timer is not at the mercy of a loaded machine, yet still sees a
// second message that should not come). A Cmd still blocked then (waitFeed
// while idle) contributes nothing.
func cmdMsgs(cmd tea.Cmd, d time.Duration) []tea.Msg {
	const settle = 200 * time.Millisecond
	if cmd == nil {
		return nil
	}
	ch := make(chan tea.Msg, 16)
	n := 0
	run := func(c tea.Cmd) {
		if c == nil {
			return
		}
		n++
		go func() { ch <- c() }()
	}
	run(cmd)
	var out []tea.Msg
	deadline := time.After(d)
	for n > 0 {
		select {
		case msg := <-ch:
			n--
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					run(c)
				}
				continue
			}
			if msg != nil {
				if len(out) == 0 {
					deadline = time.After(settle)
				}
				out = append(out, msg)
			}
		case <-deadline:
			return out
		}
	}
	return out
}

func types(msgs []tea.Msg) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, reflect.TypeOf(m).Name())
	}
	return out
}

// TestLiveIdleArmsNoTimer proves the live dashboard costs nothing while no
// frames arrive: after the coalescing tick the model returns no Cmd, and
// its only outstanding Cmd (waitFeed) stays blocked.
func TestLiveIdleArmsNoTimer(t *testing.T) {
	meta := fixtureMeta(2, 3, 100)
	feed := newFakeFeed()
	m := newLive(meta, feed, Options{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	before := m.View().Content

	// Idle from the start: waitFeed blocks, nothing else is scheduled.
	if got := cmdMsgs(waitFeed(feed), 150*time.Millisecond); len(got) != 0 {
		t.Fatalf("idle feed produced %v", types(got))
	}

	// Frames arrive: one render tick is armed, and waitFeed re-armed.
	frames := fixtureFrames(meta, 10)
	feed.push(frames...)
	_, cmd := m.Update(feedReadyMsg{})
	got := types(cmdMsgs(cmd, 5*time.Second))
	if !reflect.DeepEqual(got, []string{"renderTickMsg"}) {
		t.Fatalf("after frames: got %v, want one renderTickMsg (waitFeed blocked)", got)
	}
	if m.data.frames != len(frames) {
		t.Fatalf("ingested %d frames, want %d", m.data.frames, len(frames))
	}

	// More frames before the tick fires: no second timer.
	feed.push(fixtureFrames(meta, 12)[len(frames):]...)
	_, cmd = m.Update(feedReadyMsg{})
	if got := types(cmdMsgs(cmd, 150*time.Millisecond)); len(got) != 0 {
		t.Fatalf("second batch armed %v while a tick was pending", got)
	}

	// The tick fires: the screen is redrawn once and no timer is re-armed.
	if m.View().Content != before {
		t.Fatal("frames redrew the screen before the coalescing tick")
	}
	_, cmd = m.Update(renderTickMsg{})
	if cmd != nil {
		t.Fatal("render tick re-armed a timer while idle")
	}
	if !m.dirty {
		t.Fatal("render tick did not mark the screen for redraw")
	}
	after := m.View().Content
	if after == before {
		t.Fatal("new frames did not change the screen")
	}
	// Idle: further Views reuse the cache (no drawing work).
	m.cache = "sentinel"
	if m.View().Content != "sentinel" {
		t.Fatal("idle View redrew the screen")
	}
}

// TestLiveCoalesces: a flood of feed signals keeps one render tick armed and
// never marks the screen for redraw before it fires (≤ 20 redraws/s).
func TestLiveCoalesces(t *testing.T) {
	meta := fixtureMeta(1, 1, 1000)
	feed := newFakeFeed()
	m := newLive(meta, feed, Options{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	_ = m.View()
	for i, f := range fixtureFrames(meta, 1000) {
		feed.push(f)
		m.Update(feedReadyMsg{})
		if !m.live.tickArmed {
			t.Fatalf("frame %d: no render tick armed", i)
		}
		if m.dirty {
			t.Fatalf("frame %d marked the screen dirty before the tick", i)
		}
	}
	if m.data.frames != 1000 {
		t.Fatalf("ingested %d", m.data.frames)
	}
}

func TestLiveFeedClosed(t *testing.T) {
	meta := fixtureMeta(1, 1, 10)
	feed := newFakeFeed()
	m := newLive(meta, feed, Options{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	feed.push(fixtureFrames(meta, 10)...)
	feed.closed = true
	_, cmd := m.Update(feedReadyMsg{})
	got := types(cmdMsgs(cmd, 5*time.Second))
	if !reflect.DeepEqual(got, []string{"renderTickMsg"}) {
		t.Fatalf("closed feed: got %v, want only the render tick (no waitFeed)", got)
	}
	if !m.live.ended || m.data.frames != 10 {
		t.Fatalf("ended=%v frames=%d", m.live.ended, m.data.frames)
	}
	if m.st.Screen != ScreenSummary {
		t.Fatalf("the finished run is on %s, want Summary", m.st.Screen.Title())
	}
	// And q quits at once: nothing is left to stop.
	m.Update(keyPress("1"))
	if _, cmd := m.Update(keyPress("q")); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("q on an ended live run did not quit")
	}
}

// TestLiveQuitAsks: q on a running live run asks first; another key
// cancels; q twice quits.
func TestLiveQuitAsks(t *testing.T) {
	m := newLive(fixtureMeta(1, 1, 10), newFakeFeed(), Options{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if _, cmd := m.Update(keyPress("q")); cmd != nil || !m.st.Confirm {
		t.Fatal("q on a running live run did not ask")
	}
	if !strings.Contains(m.View().Content, "stop the live run and quit?") {
		t.Fatal("the question is not shown")
	}
	if _, cmd := m.Update(keyPress("x")); m.st.Confirm || cmd != nil {
		t.Fatal("another key did not cancel")
	}
	m.Update(keyPress("q"))
	if _, cmd := m.Update(keyPress("q")); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("q twice did not quit")
	}
}

// TestLivePauseFreezesDisplay: while paused the feed is left alone (it
// coalesces), so neither the tick nor a key that changes the screen shows
// new data; space takes the frames and redraws.
func TestLivePauseFreezesDisplay(t *testing.T) {
	meta := fixtureMeta(1, 1, 50)
	feed := newFakeFeed()
	m := newLive(meta, feed, Options{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(keyPress("space"))
	frozen := m.View().Content
	feed.push(fixtureFrames(meta, 50)...)
	m.Update(feedReadyMsg{})
	m.Update(renderTickMsg{})
	if m.View().Content != frozen {
		t.Fatal("paused display changed on a render tick")
	}
	m.Update(keyPress("7"))
	m.Update(keyPress("1"))
	if m.View().Content != frozen || m.data.frames != 0 {
		t.Fatalf("paused display took new data on a screen change (frames %d)", m.data.frames)
	}
	m.Update(keyPress("space"))
	if m.data.frames != 50 {
		t.Fatalf("unpausing ingested %d frames, want 50", m.data.frames)
	}
	if m.View().Content == frozen {
		t.Fatal("unpausing did not redraw")
	}
}

// TestNewLiveRealFeed runs the dashboard on a real probes.Feed through a
// tea.Program: frames pushed from another goroutine reach the screen.
func TestNewLiveRealFeed(t *testing.T) {
	meta := fixtureMeta(2, 3, 100)
	feed := probes.NewFeed(64)
	m := NewLive(meta, feed, Options{RunPath: "runs/live.ntr"})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	go func() {
		for _, f := range fixtureFrames(meta, 100) {
			feed.Push(f)
		}
		feed.Close()
	}()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("ended")) },
		teatest.WithDuration(teaTimeout))
	tm.Send(keyPress("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(teaTimeout)).(*Model)
	if fm.data.step != 100 || !fm.live.ended {
		t.Fatalf("live dashboard saw step %d, ended=%v", fm.data.step, fm.live.ended)
	}
}
