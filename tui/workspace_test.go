package tui

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// wsFixture is a workspace of three run files in memory (two runs of the
// fixture, one of another model) and one that cannot be read.
func wsFixture(dark bool) *Workspace {
	files := map[string]*sliceSource{}
	for i, name := range []string{"runs/a.ntr", "runs/b.ntr", "runs/c.ntr"} {
		meta := fixtureMeta(2+i%2, 2, 120)
		meta.RunID = fmt.Sprintf("2026010%dT000000Z-transformer-seed1", i+1)
		if i == 2 {
			meta.Model = "mlp"
		}
		files[name] = &sliceSource{meta: meta, frames: fixtureFrames(meta, 120)}
	}
	open := func(path string) (ReplaySource, func(), error) {
		src, ok := files[path]
		if !ok {
			return nil, nil, errors.New("not a normtop run file")
		}
		cp := *src
		cp.pos = 0
		return &cp, func() {}, nil
	}
	paths := []string{"runs/a.ntr", "runs/b.ntr", "runs/c.ntr", "runs/junk.ntr"}
	return NewWorkspace(paths, open, Options{Dark: &dark}, "").(*Workspace)
}

// allRead wraps a workspace under test and closes ready, from inside its
// Update, once every file has been read (loaded, or found unreadable).
// Waiting for a "done" in the output was not enough: on a loaded machine
// the keys could arrive while another file was still loading, and the
// last screen then showed "loading…" where the golden has "done".
type allRead struct {
	*Workspace
	once  sync.Once
	ready chan struct{}
}

func (a *allRead) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := a.Workspace.Update(msg)
	read := len(a.runs) > 0
	for i := range a.runs {
		read = read && (a.runs[i].loaded || a.runs[i].err != nil)
	}
	if read {
		a.once.Do(func() { close(a.ready) })
	}
	return a, cmd
}

// runWorkspace drives the workspace through a real program and returns its
// last screen, escapes stripped.
func runWorkspace(t *testing.T, ws *Workspace, w, h int, keys ...string) string {
	t.Helper()
	read := &allRead{Workspace: ws, ready: make(chan struct{})}
	tm := teatest.NewTestModel(t, read, teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
	select {
	case <-read.ready:
	case <-time.After(teaTimeout):
		t.Fatalf("the workspace's files were not all read within %v", teaTimeout)
	}
	for _, k := range keys {
		tm.Send(keyPress(k))
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	return tm.FinalModel(t, teatest.WithFinalTimeout(teaTimeout)).View().Content
}

// TestWorkspace: the list shows every file (the unreadable one says so on
// one line, the others load), space overlays the selected runs as
// run·variant, runs of different models are said to be, enter opens a
// run and esc comes back.
func TestWorkspace(t *testing.T) {
	out := ansi.Strip(runWorkspace(t, wsFixture(true), 160, 48, "space", "down", "space"))
	for _, want := range []string{"4 run files", "20260101T000000Z-transformer-seed1", "unreadable", "done",
		"of 2 runs", "20260101T000000Z·layernorm", "20260102T000000Z·batchnorm"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
	out = ansi.Strip(runWorkspace(t, wsFixture(true), 160, 48, "space", "down", "down", "space"))
	if !strings.Contains(out, "different models") {
		t.Errorf("a transformer and an mlp overlaid without a note:\n%s", out)
	}
	out = ansi.Strip(runWorkspace(t, wsFixture(true), 120, 40, "down", "down", "down"))
	if !strings.Contains(out, "runs/junk.ntr: not a normtop run file") {
		t.Errorf("the unreadable file's line is missing:\n%s", out)
	}
	out = ansi.Strip(runWorkspace(t, wsFixture(true), 120, 40, "enter"))
	if !strings.Contains(out, "1 Overview") || !strings.Contains(out, "runs/a.ntr") {
		t.Errorf("enter did not open the run:\n%s", out)
	}
	for _, k := range []string{"esc", "q"} {
		out = ansi.Strip(runWorkspace(t, wsFixture(true), 120, 40, "enter", "2", k))
		if !strings.Contains(out, "workspace · 4 run files") {
			t.Errorf("%s did not come back to the list:\n%s", k, out)
		}
	}
}

// TestWorkspaceEmpty: a directory without run files is one line.
func TestWorkspaceEmpty(t *testing.T) {
	ws := NewWorkspace(nil, nil, Options{}, "no run files (*.ntr) in runs").(*Workspace)
	ws.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if out := ansi.Strip(ws.View().Content); !strings.Contains(out, "no run files (*.ntr) in runs") {
		t.Fatalf("no note:\n%s", out)
	}
}

// TestGoldenWorkspace: the list with two runs overlaid, at 80×24 and
// 160×48, colours pinned.
func TestGoldenWorkspace(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			out := runWorkspace(t, wsFixture(true), size[0], size[1], "space", "down", "space")
			golden.RequireEqual(t, pinned(t, out, colorprofile.ANSI256))
		})
	}
}

// growingSource is a run file still being written: limit frames exist
// until the test appends more; ended says the writer finished.
type growingSource struct {
	sliceSource
	ended bool
}

func (g *growingSource) Ended() bool { return g.ended && g.pos >= len(g.frames) }

// TestWorkspaceFollowsLiveRuns: a file still being written when loaded
// stays open, and each poll adds what was appended, until its run ends.
func TestWorkspaceFollowsLiveRuns(t *testing.T) {
	meta := fixtureMeta(2, 1, 100)
	src := &growingSource{sliceSource: sliceSource{meta: meta, frames: fixtureFrames(meta, 100), limit: 60}}
	closed := 0
	open := func(string) (ReplaySource, func(), error) { return src, func() { closed++ }, nil }
	ws := NewWorkspace([]string{"runs/live.ntr"}, open, Options{}, "").(*Workspace)
	run := func(cmd tea.Cmd) tea.Msg { return cmd() }
	_, cmd := ws.Update(run(headerCmd(open, 0, "runs/live.ntr")))
	if cmd == nil {
		t.Fatal("no load after the header")
	}
	ws.Update(run(loadCmd(open, 0, "runs/live.ntr")))
	r := &ws.runs[0]
	if !r.live || r.data.step != 30 {
		t.Fatalf("after loading 60 frames: live %v, step %d", r.live, r.data.step)
	}
	src.limit, src.ended = 0, true // the rest is written, and the end
	_, cmd = ws.Update(wsPollMsg{})
	ws.Update(run(cmd))
	if r.data.step != 100 || r.live || closed == 0 {
		t.Fatalf("after the poll: step %d, live %v, closed %d", r.data.step, r.live, closed)
	}
}
