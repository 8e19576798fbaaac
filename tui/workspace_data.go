package tui

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// A workspace (normtop replay DIR, or several files) lists run files and
// overlays the variants of the ones selected. It reads each file's header
// first (the list fills at once), then each file's frames into a store of
// its own, one file at a time in a tea.Cmd (the rows gain their status,
// steps and best metric as they load).

// Opener opens a run file for reading; the func closes it.
type Opener func(path string) (ReplaySource, func(), error)

// wsRun is one run file of the workspace.
type wsRun struct {
	path   string
	meta   probes.RunMeta
	err    error  // unreadable or damaged beyond reading: the row says so
	note   string // damaged regions skipped, no end record: said on the row
	data   *store // nil until its frames are loaded
	loaded bool
	// live: the file was still being written when loaded; it stays open
	// (src, closer) and is polled for appended frames.
	live   bool
	src    ReplaySource
	closer func()
}

// wsHeaderMsg carries one file's header.
type wsHeaderMsg struct {
	i    int
	meta probes.RunMeta
	err  error
}

// wsLoadedMsg carries one file's frames, ingested into a store; a file
// still being written comes with its source, left open to follow.
type wsLoadedMsg struct {
	i      int
	data   *store
	err    error
	note   string
	src    ReplaySource
	closer func()
}

// wsPollMsg asks the live files for appended frames; wsAppendedMsg
// carries them.
type wsPollMsg struct{}

type wsAppendedMsg struct {
	frames map[int][]probes.Frame
	ended  map[int]bool // the file's run ended: follow it no more
}

// wsFollowPoll is how often the workspace looks for frames appended to the
// runs still being written.
const wsFollowPoll = time.Second

// Noter is optionally implemented by a ReplaySource that can say, once
// read, what was not whole about it (damage skipped, no end record).
type Noter interface {
	Note() string
}

// headerCmd opens file i and reads its header.
func headerCmd(open Opener, i int, path string) tea.Cmd {
	return func() tea.Msg {
		src, closer, err := open(path)
		if err != nil {
			return wsHeaderMsg{i: i, err: err}
		}
		defer closer()
		return wsHeaderMsg{i: i, meta: src.Meta().Safe()}
	}
}

// loadCmd reads file i to its end into a store.
func loadCmd(open Opener, i int, path string) tea.Cmd {
	return func() tea.Msg {
		src, closer, err := open(path)
		if err != nil {
			return wsLoadedMsg{i: i, err: err}
		}
		st := newStore(src.Meta())
		for {
			f, err := src.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				closer()
				return wsLoadedMsg{i: i, data: st, err: err}
			}
			st.add(&f)
		}
		if e, ok := src.(Ender); ok && !e.Ended() {
			return wsLoadedMsg{i: i, data: st, src: src, closer: closer}
		}
		note := ""
		if n, ok := src.(Noter); ok {
			note = n.Note()
		}
		closer()
		return wsLoadedMsg{i: i, data: st, note: note}
	}
}

// pollCmd reads what was appended to the live files since their last
// read. The sources are touched only by this Cmd, one at a time.
func pollCmd(srcs map[int]ReplaySource) tea.Cmd {
	return func() tea.Msg {
		out := wsAppendedMsg{frames: map[int][]probes.Frame{}, ended: map[int]bool{}}
		for i, src := range srcs {
			for {
				f, err := src.Next()
				if err != nil {
					break
				}
				out.frames[i] = append(out.frames[i], f)
			}
			if e, ok := src.(Ender); ok && e.Ended() {
				out.ended[i] = true
			}
		}
		return out
	}
}

// seedCount is how many distinct seeds the run's variants have (1 when it
// records none).
func seedCount(meta probes.RunMeta) int {
	seen := map[int64]bool{}
	for _, v := range meta.Variants {
		seen[v.Seed] = true
	}
	return max(len(seen), 1)
}

// status is the run's state in a word: loading, or every variant's
// status folded (diverged beats stopped beats running beats done).
func (r *wsRun) status() string {
	switch {
	case r.err != nil:
		return "unreadable"
	case !r.loaded:
		return "loading…"
	}
	if r.data.step == 0 {
		return "empty"
	}
	s := probes.Done
	for i := range r.data.variants {
		s = probes.WorseStatus(s, r.data.tally.Variants[i].Status)
	}
	return s.String()
}

// best is the best val metric of any variant of the run, formatted.
func (r *wsRun) best() string {
	if !r.loaded {
		return probes.Missing
	}
	metric := r.meta.MetricKind()
	b := math.NaN()
	for _, v := range r.data.tally.Variants {
		if metric.Better(v.Best, b) {
			b = v.Best
		}
	}
	if math.IsNaN(b) {
		return probes.Missing
	}
	return metric.Short() + " " + metric.Format(b)
}

// steps is the run's highest step, with its planned total when known.
func (r *wsRun) steps() string {
	if !r.loaded {
		if t := r.meta.Config["steps"]; t != "" {
			return "?/" + t
		}
		return "?"
	}
	if r.data.total > 0 {
		return fmt.Sprintf("%d/%d", r.data.step, r.data.total)
	}
	return strconv.Itoa(r.data.step)
}
