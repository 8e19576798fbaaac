package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/normtop/normtop/headless"
)

const replayHelpHint = "normtop replay --help"

type replayOptions struct {
	path string
	// dir or paths (several files): the workspace of several runs.
	dir       string
	paths     []string
	follow    bool
	wait      time.Duration // --follow: how long to wait for a file that does not exist yet
	speed     float64
	from      int
	headless  bool
	logEvery  int
	logFormat string
	logLayout string
	noColor   bool
}

func newReplayFlags() (*flag.FlagSet, *replayOptions) {
	o := &replayOptions{speed: 1, logEvery: 1, logFormat: "text", logLayout: "auto", wait: time.Minute}
	fs := newFlagSet("replay")
	fs.BoolVar(&o.follow, "follow", false, "keep reading as the run file grows (a run still being written)")
	fs.DurationVar(&o.wait, "wait", o.wait, "with --follow: how long to wait for a run file that does not exist yet (a script that has not started writing; 0 = not at all)")
	fs.Float64Var(&o.speed, "speed", o.speed, "dashboard playback speed, × the recorded pace")
	fs.IntVar(&o.from, "from", 0, "start at this training step")
	fs.BoolVar(&o.headless, "headless", false, "log lines instead of the dashboard (the default when stdout is not a terminal)")
	fs.IntVar(&o.logEvery, "log-every", o.logEvery, "headless: one line every N steps")
	fs.StringVar(&o.logFormat, "log-format", o.logFormat, "headless line format: text | json")
	fs.StringVar(&o.logLayout, "log-layout", o.logLayout, "headless text lines: auto (rows past 160 characters) | columns | rows (one line per variant)")
	fs.BoolVar(&o.noColor, "no-color", false, "dashboard without colour (also NO_COLOR=1)")
	return fs, o
}

func parseReplay(args []string) (*replayOptions, error) {
	fs, o := newReplayFlags()
	pos, err := parseArgs(fs, args, replayHelpHint)
	if err != nil {
		return nil, err
	}
	switch {
	case len(pos) != 1 && o.headless:
		return nil, usageErrorf(replayHelpHint, "--headless replays one run file (no argument, a directory or several files open the workspace)")
	case !(o.speed > 0) || math.IsInf(o.speed, 0):
		return nil, usageErrorf(replayHelpHint, "--speed %g: want a factor above 0 (e.g. 0.5, 1, 8)", o.speed)
	case o.from < 0:
		return nil, usageErrorf(replayHelpHint, "--from %d: want a step ≥ 0", o.from)
	case o.wait < 0:
		return nil, usageErrorf(replayHelpHint, "--wait %s: want a duration ≥ 0 (e.g. 30s, 5m; 0 = do not wait)", o.wait)
	case o.logEvery < 1:
		return nil, usageErrorf(replayHelpHint, "--log-every %d: want 1 or more", o.logEvery)
	}
	if _, err := headless.ParseFormat(o.logFormat); err != nil {
		return nil, usageError(replayHelpHint, fmt.Errorf("--log-format: %w", err))
	}
	if _, err := headless.ParseLayout(o.logLayout); err != nil {
		return nil, usageError(replayHelpHint, fmt.Errorf("--log-layout: %w", err))
	}
	switch {
	case len(pos) == 0:
		o.dir = "runs"
	case len(pos) > 1:
		o.paths = pos
	case isDir(pos[0]) && !o.headless:
		o.dir = pos[0]
	default:
		o.path = pos[0]
	}
	return o, nil
}

// isDir reports whether path names a directory (a link to one included).
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

const replayHelp = `Usage: normtop replay [FILE | DIR | FILE FILE...] [flags]

Shows a recorded run: the dashboard when stdout is a terminal, log lines
otherwise (or with --headless). With --follow it keeps reading while the run
is still being written, so a headless run on a remote machine can be watched
from another terminal. FILE may be runs/latest, which names the newest run.

A directory (no argument: ./runs) or several files open the workspace: the
run files listed (run, model, data, variants, seeds, status, steps, best
metric, start), space overlays the selected runs' variants on one chart,
enter opens one run, esc or q comes back to the list.

Examples:
  normtop replay runs/latest
  normtop replay --follow runs/latest
  ssh -t gpu-box normtop replay --follow runs/latest
  normtop replay runs/20261122-031500-mlp.ntr --from 2000 --speed 4
  normtop replay runs/latest --headless --log-every 100
  normtop replay                       # the workspace of ./runs
  normtop replay a.ntr b.ntr

Flags:
`
