package tui

import (
	"github.com/normtop/normtop/probes"
)

// feedReadyMsg: the live feed signalled that frames are pending.
type feedReadyMsg struct{}

// renderTickMsg: the coalescing timer fired; draw what arrived since the
// last frame. Armed only when frames arrive, so an idle dashboard has no
// timer running.
type renderTickMsg struct{}

// replayTickMsg advances the replay clock by one tick. gen discards ticks
// scheduled before a seek.
type replayTickMsg struct{ gen int }

// followPollMsg asks the replay source for frames appended since EOF.
type followPollMsg struct{ gen int }

// replayBatchMsg carries frames read from the replay source by a Cmd.
type replayBatchMsg struct {
	gen    int
	frames []probes.Frame
	eof    bool  // the source has nothing more for now
	ended  bool  // at EOF the source reported Ended: nothing more will come
	err    error // a read error other than io.EOF
	// reached: a seek batch read up to its target step (or EOF).
	reached bool
}

// FindingsMsg carries the papers' findings as `normtop report` judges this
// run, one line each; the Summary screen lists them. The command that runs
// the dashboard computes them (file I/O stays out of the model) once the run
// file is complete, and sends them with tea.Program.Send.
type FindingsMsg struct{ Lines []string }
