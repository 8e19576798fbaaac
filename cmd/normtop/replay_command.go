package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/normtop/normtop/headless"
	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
	"github.com/normtop/normtop/tui"
)

// followPoll is how often a headless --follow looks for new frames; the
// format promises them within 1 s.
const followPoll = 200 * time.Millisecond

func runReplay(args []string, st streams) error {
	o, err := parseReplay(args)
	if errors.Is(err, errHelp) {
		flags, _ := newReplayFlags()
		fmt.Fprint(st.out, replayHelp)
		printFlags(st.out, flags)
		return nil
	}
	if err != nil {
		return err
	}
	if o.dir != "" || len(o.paths) > 0 {
		if !isTerminal(st.out.File) {
			return usageErrorf(replayHelpHint, "the workspace (a directory or several run files) needs a terminal; for log lines give one run file")
		}
		return runWorkspace(o, st)
	}
	// runs/latest moves when another run starts: the replay is pinned to
	// the file it names now, and says that file's name.
	if o.follow {
		waitForRunFile(o.path, o.wait, st.err)
	}
	o.path = resolveRunPath(o.path)
	r, err := openRunFile(o.path, o.follow)
	if err != nil {
		return dataError(err)
	}
	defer r.Close()
	headlessMode := o.headless || !isTerminal(st.out.File)
	// The dashboard handles --from itself (it reads the steps before it
	// without pacing, so its charts show the past); headless starts there.
	if o.from > 0 && headlessMode {
		if err := r.Seek(o.from); err != nil {
			return dataError(fmt.Errorf("%s: seeking to step %d: %w", o.path, o.from, err))
		}
	}
	sig := watchSignals(context.Background(), headlessMode)
	defer sig.stop()
	if headlessMode {
		err = replayHeadless(sig.ctx, r, o, st)
	} else {
		err = replayDashboard(sig.ctx, r, o, st)
	}
	if err != nil {
		return err
	}
	if note := runFileNote(o.path, r, o.follow, " (watch it live with --follow)"); note != "" {
		fmt.Fprintln(st.err, "normtop: "+probes.SafeText(note))
	}
	return nil
}

// resolveRunPath follows a symbolic link (runs/latest) once, to the run
// file it names; any other path, or a link that does not resolve, is
// returned as it is (opening it then says what is wrong).
func resolveRunPath(path string) string {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return path
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path
	}
	return real
}

// openRunFile opens a run file. When following, a header that is not
// complete yet (the writer has only just created the file) is waited for
// a few seconds instead of being an error.
func openRunFile(path string, follow bool) (*record.Reader, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, err := record.Open(path)
		if err == nil || !follow || !errors.Is(err, record.ErrIncompleteHeader) || time.Now().After(deadline) {
			return r, err
		}
		time.Sleep(followPoll)
	}
}

// waitForRunFile waits, for at most wait, for path to exist: `replay
// --follow` started before the script that writes the stream. One line says
// it waits; at the deadline the open fails as it would have at once (exit
// 3). Nothing is held while waiting, so Ctrl-C takes its default action.
func waitForRunFile(path string, wait time.Duration, errOut io.Writer) {
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) || wait <= 0 {
		return
	}
	fmt.Fprintf(errOut, "normtop: %s does not exist yet: waiting up to %s for it to appear (--wait)\n", probes.SafeText(path), wait)
	for end := time.Now().Add(wait); time.Now().Before(end); {
		time.Sleep(followPoll)
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			return
		}
	}
}

// replayHeadless prints the run file's frames as log lines; with --follow it
// waits for more until the end record arrives, the writer is found gone, or
// the user interrupts.
func replayHeadless(ctx context.Context, r *record.Reader, o *replayOptions, st streams) error {
	format, _ := headless.ParseFormat(o.logFormat)
	layout, _ := headless.ParseLayout(o.logLayout)
	pr := headless.New(st.out, r.Meta(), headless.Options{Format: format, Every: o.logEvery, Layout: layout})
	defer pr.Close() // its error, if any, is st.out's, which run checks
	saidLost := false
	for {
		f, err := r.Next()
		if err == nil {
			if perr := pr.Frame(f); perr != nil {
				return nil // stdout is gone: nothing left to show (run says why)
			}
			continue
		}
		if !errors.Is(err, io.EOF) {
			return dataError(fmt.Errorf("%s: %w", o.path, err))
		}
		if !o.follow || r.Ended() { // end record read, or the writer gone without one
			return nil
		}
		if why := r.PathLost(); why != "" && !saidLost {
			saidLost = true
			fmt.Fprintf(st.err, "normtop: warning: %s no longer names the run file followed (%s); still following the file as opened\n", probes.SafeText(o.path), why)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(followPoll):
		}
	}
}

func replayDashboard(ctx context.Context, r *record.Reader, o *replayOptions, st streams) error {
	model := tui.NewReplay(r, tui.Options{RunPath: o.path, Speed: o.speed, From: o.from, Follow: o.follow, NoColor: o.noColor})
	input, note := dashboardInput(st.in)
	if note != "" {
		fmt.Fprintln(st.err, "normtop: "+probes.SafeText(note))
	}
	prog := tea.NewProgram(model, tea.WithContext(ctx), tea.WithInput(input), tea.WithOutput(st.out),
		tea.WithoutSignalHandler())
	if !o.follow {
		go sendFindings(prog, o.path)
	}
	if _, err := prog.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("dashboard: %w", err)
	}
	return nil
}

// runFileNote is the one line said about a run file that was read without
// trouble but is not whole: damaged regions skipped, or no end record.
// followHint, when not empty, is appended to the "still being written" note.
func runFileNote(path string, r *record.Reader, followed bool, followHint string) string {
	var parts []string
	if d := r.Damage(); len(d) > 0 {
		parts = append(parts, fmt.Sprintf("skipped %d damaged region(s), the first %s; everything else was read", len(d), d[0]))
	}
	if n, first := r.StepDisorder(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d frame(s) whose step does not increase (the first: %s), shown as written", n, first))
	}
	if at, ok := r.SecondRun(); ok {
		parts = append(parts, fmt.Sprintf("another run file begins at byte %d (two files concatenated?): only the first run was read; `tail -c +%d %s` is the second", at, at+1, path))
	}
	if why := r.PathLost(); why != "" {
		parts = append(parts, "the path no longer names the file that was read ("+why+")")
	}
	switch r.State() {
	case record.Writing:
		if !followed {
			parts = append(parts, "the run is still being written; this is what was there"+followHint)
		}
	case record.Unterminated:
		parts = append(parts, "no end record: the run was killed or crashed; everything complete before that was read")
	}
	if len(parts) == 0 {
		return ""
	}
	return path + ": " + strings.Join(parts, "; ")
}
