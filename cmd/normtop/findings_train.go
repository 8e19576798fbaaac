package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/normtop/normtop/findings"
	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
	"github.com/normtop/normtop/train"
)

// trainForFindings is findings.Trainer for the real trainer: `normtop train
// args --record path --headless`, in process, with no log lines (the
// progress callback reports the step every variant has reached). Stopped
// through ctx, it closes the run file, which then says interrupted.
func trainForFindings(ctx context.Context, args []string, path string, progress func(findings.Progress)) error {
	full := append(append([]string(nil), args...), "--record", path, "--headless")
	o, _, err := parseTrain(full)
	if err != nil {
		return err
	}
	if err := announceScale(io.Discard, o.scale, o.cfg); err != nil { // refused before the data loads
		return err
	}
	runner, err := train.NewRunnerContext(ctx, o.cfg)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return loadError(err)
	}
	meta := runner.Meta()
	steps, _ := strconv.Atoi(meta.Config["steps"])
	w, err := record.Create(path, meta)
	if err != nil {
		return fmt.Errorf("cannot create the run file: %w", err)
	}
	// As train says it: at once, on stderr, while the run goes on into the
	// open file (the close then saves it elsewhere and fails this run).
	w.OnPathLost(func(why string) { fmt.Fprintln(os.Stderr, pathLostLine(path, why)) })
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rec := newRecorder(w, cancel)
	at := make([]int, len(meta.Variants))
	runErr := runner.Run(ctx, func(f probes.Frame) {
		rec.write(f)
		if f.Variant >= 0 && f.Variant < len(at) {
			at[f.Variant] = f.Step
		}
		progress(findings.Progress{Step: minStep(at), Steps: steps})
	})
	closeErr := w.Close(rec.end())
	switch {
	case rec.err != nil:
		return fmt.Errorf("writing %s: %w", path, rec.err)
	case closeErr != nil:
		return fmt.Errorf("closing %s: %w", path, closeErr)
	case runErr != nil && !errors.Is(runErr, context.Canceled):
		return fmt.Errorf("training stopped: %w", runErr)
	}
	return ctx.Err()
}

func minStep(at []int) int {
	m := at[0]
	for _, s := range at[1:] {
		m = min(m, s)
	}
	return m
}
