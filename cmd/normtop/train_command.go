package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/normtop/normtop/datasets"
	"github.com/normtop/normtop/headless"
	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
	"github.com/normtop/normtop/train"
	"github.com/normtop/normtop/tui"
)

// feedCapacity bounds the dashboard's frame queue; the feed drops plain
// frames beyond it, never the recorder.
const feedCapacity = 4096

func runTrain(args []string, st streams) error {
	o, flags, err := parseTrain(args)
	if errors.Is(err, errHelp) {
		fmt.Fprint(st.out, trainHelp)
		printFlags(st.out, flags)
		// Help is the product here, unlike train's log lines (run leaves
		// train's stdout unchecked): help that could not be written fails.
		return st.out.check(nil)
	}
	if err != nil {
		return err
	}
	headlessMode := o.headless || !isTerminal(st.out.File)
	// Signals are watched from here on, so that SIGHUP cannot kill a
	// headless run even while its data loads.
	sig := watchSignals(context.Background(), headlessMode)
	defer sig.stop()

	if err := announceScale(st.err, o.scale, o.cfg); err != nil {
		return err
	}
	datasets.Warn = func(msg string) { fmt.Fprintln(st.err, "normtop: warning: "+probes.SafeText(msg)) }
	runner, err := loadRunner(sig, o.cfg)
	if err != nil {
		return loadError(err)
	}
	meta := runner.Meta()
	w, path, err := createRunFile(o, meta, st)
	if err != nil {
		return err
	}
	if headlessMode || !isTerminal(st.err) {
		// Said at once, while the run goes on into the open file. Over
		// the dashboard a stray line would be painted over: there the
		// end's line (LostError: where the recording was saved) says it.
		w.OnPathLost(func(why string) { fmt.Fprintln(st.err, pathLostLine(path, why)) })
	}
	rec := newRecorder(w, sig.cancel)

	var runErr error
	if headlessMode {
		runErr = runHeadless(sig.ctx, runner, meta, rec, o, st)
	} else {
		runErr = runDashboard(sig.ctx, sig.cancel, runner, meta, rec, path, o, st)
	}

	// finish is idempotent: the dashboard closed the file when training
	// ended (the end record then, not at q); headless closes it here.
	end, closeErr := rec.finish()
	var lost *record.LostError
	switch {
	case errors.As(closeErr, &lost):
		// No "run completed; run file X": X is not the recording.
		return closeErr
	case rec.err != nil:
		// The error is the line to read; no status line before it.
		return fmt.Errorf("writing %s: %w (the run was stopped; what was written before is readable)", path, rec.err)
	case closeErr != nil:
		return fmt.Errorf("closing %s: %w", path, closeErr)
	}
	fmt.Fprintf(st.err, "normtop: run %s; run file %s\n", end.Status, probes.SafeText(path))

	switch {
	case runErr != nil && !errors.Is(runErr, context.Canceled):
		return fmt.Errorf("training stopped: %w", runErr)
	case sig.signal() != nil:
		return &cliError{code: signalExitCode(sig.signal()), err: errQuiet}
	case rec.allDiverged():
		return &cliError{code: exitDiverged, err: fmt.Errorf("every variant diverged (see %s)", path)}
	}
	return nil
}

// pathLostLine is the warning, while the run is written, that its run
// file's path no longer names the recording.
func pathLostLine(path, why string) string {
	return fmt.Sprintf("normtop: warning: run file %s is no longer there (%s); the run goes on recording into the open file, and saves it elsewhere when it ends", probes.SafeText(path), why)
}

// loadRunner loads the data and builds the models on another goroutine and
// waits for it or for a stop signal, whichever comes first. The loader reads
// under sig's context, so a signal stops it between reads; waiting on the
// side also covers what no context reaches (opening a FIFO that no writer
// has opened blocks in the kernel). Stopped while loading, there is nothing
// to record: one line, and the signal's exit code.
func loadRunner(sig *stopSignals, cfg train.Config) (*train.Runner, error) {
	type loaded struct {
		r   *train.Runner
		err error
	}
	done := make(chan loaded, 1)
	go func() {
		r, err := train.NewRunnerContext(sig.ctx, cfg)
		done <- loaded{r, err}
	}()
	select {
	case l := <-done:
		if s := sig.signal(); s != nil {
			return nil, stoppedLoading(s)
		}
		return l.r, l.err
	case <-sig.ctx.Done():
		select { // give a loader that is reading the moment to close its files
		case <-done:
		case <-time.After(200 * time.Millisecond):
		}
		return nil, stoppedLoading(sig.signal())
	}
}

func stoppedLoading(s os.Signal) error {
	if s == nil {
		return errors.New("stopped while loading the data; nothing was recorded")
	}
	return &cliError{code: signalExitCode(s),
		err: fmt.Errorf("stopped by %s while loading the data; nothing was recorded", signalName(s))}
}

// createRunFile creates the run file (--record, or a new name under runs/),
// points runs/latest at it and says where it is.
func createRunFile(o *trainOptions, meta probes.RunMeta, st streams) (*record.Writer, string, error) {
	path := o.record
	if path == "" {
		path = defaultRunPath(time.Now(), string(o.cfg.Model))
	}
	w, err := record.Create(path, meta)
	if errors.Is(err, fs.ErrExist) {
		return nil, "", usageError(trainHelpHint, err)
	}
	if err != nil {
		return nil, "", fmt.Errorf("cannot create the run file: %w", err)
	}
	if err := linkLatest(path); err != nil {
		fmt.Fprintf(st.err, "normtop: warning: %s/latest not updated: %s\n", probes.SafeText(runsDir), probes.SafeText(err.Error()))
	}
	fmt.Fprintf(st.err, "normtop: recording to %s\n", probes.SafeText(path))
	return w, path, nil
}

// runHeadless trains with log lines on stdout. A failing stdout (a closed
// SSH session) stops the lines, never the training or the recording.
func runHeadless(ctx context.Context, runner *train.Runner, meta probes.RunMeta, rec *recorder, o *trainOptions, st streams) error {
	format, _ := headless.ParseFormat(o.logFormat)
	layout, _ := headless.ParseLayout(o.logLayout)
	// The printer draws on the writer's standings: each Frame is folded
	// once, by the writer, before the printer takes it.
	pr := headless.New(st.out, meta, headless.Options{Format: format, Every: o.cfg.LogEvery, Layout: layout,
		Standings: rec.w.Standings()})
	err := runner.Run(ctx, func(f probes.Frame) {
		rec.write(f)
		pr.Frame(f)
	})
	pr.Close()
	return err
}

// runDashboard trains on a goroutine while the dashboard runs on this one.
// Frames reach the dashboard through a lossy feed, so a slow terminal never
// slows training. Quitting the dashboard stops training; the run file is
// closed with its end record when training ends, not when the dashboard is
// quit.
func runDashboard(ctx context.Context, cancel context.CancelFunc, runner *train.Runner, meta probes.RunMeta,
	rec *recorder, path string, o *trainOptions, st streams) error {
	feed := probes.NewFeed(feedCapacity)
	model := tui.NewLive(meta, feed, tui.Options{RunPath: path, NoColor: o.noColor})
	input, note := dashboardInput(st.in)
	if note != "" {
		fmt.Fprintln(st.err, "normtop: "+probes.SafeText(note))
	}
	prog := tea.NewProgram(model, tea.WithContext(ctx), tea.WithInput(input), tea.WithOutput(st.out),
		tea.WithoutSignalHandler())
	done := make(chan error, 1)
	go func() {
		err := runner.Run(ctx, func(f probes.Frame) {
			rec.write(f)
			// The dashboard draws on the writer's fold (the feed copies it
			// here, on the runner's goroutine): each Frame is folded once.
			feed.PushFolded(f, rec.w.Standings())
		})
		// Training has ended: the end record is written now, while the
		// dashboard still shows the run (replay --follow, report and
		// export read it as finished), and the findings are read back
		// from the complete file.
		_, closeErr := rec.finish()
		flushed := closeErr == nil && rec.err == nil
		done <- err
		feed.Close()
		if flushed && ctx.Err() == nil {
			go sendFindings(prog, path)
		}
	}()
	_, uiErr := prog.Run()
	cancel()
	runErr := <-done
	if uiErr != nil && !errors.Is(uiErr, tea.ErrProgramKilled) && runErr == nil {
		return fmt.Errorf("dashboard: %w", uiErr)
	}
	return runErr
}

// loadError sorts an error of building a run (data, sizes, variants) into
// its exit code: the data's (3), a usage error (2) for sizes past the
// limits and variants that do not fit the model's sites, else 1.
func loadError(err error) error {
	var ve *train.VariantError // a variant that does not fit the model's sites
	switch {
	case errors.Is(err, train.ErrData) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission):
		return dataError(err)
	case errors.Is(err, train.ErrTooLarge) || errors.Is(err, train.ErrTooManySteps):
		return usageError(trainHelpHint, err)
	case errors.As(err, &ve):
		return usageError("normtop variants", fmt.Errorf("--variants: %w", err))
	}
	return err
}
