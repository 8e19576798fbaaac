package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/report"
)

func runReport(args []string, st streams) error {
	o, err := parseReport(args)
	if errors.Is(err, errHelp) {
		flags, _ := newReportFlags()
		fmt.Fprint(st.out, reportHelp)
		printFlags(st.out, flags)
		return nil
	}
	if err != nil {
		return err
	}
	if err := checkOut(o.out, reportHelpHint, o.force, o.paths...); err != nil {
		return err
	}
	// The report keeps every probe value (float32, pointer-free) while the
	// decoder makes garbage frame by frame: collecting more often costs
	// little (nothing to scan) and keeps a 1 GB run's memory near the values.
	debug.SetGCPercent(25)
	runs := make([]*report.Run, 0, len(o.paths))
	for _, p := range o.paths {
		run, err := report.Read(p)
		if err != nil {
			return dataError(err)
		}
		runs = append(runs, run)
	}
	rep, err := report.New(runs)
	if err != nil {
		return usageError(reportHelpHint, err)
	}
	if err := o.write(st, func(w io.Writer, where string) error {
		if err := reportWriters[o.format](rep, w); err != nil {
			return fmt.Errorf("%s: %w", where, unwrapPath(err))
		}
		return nil
	}); err != nil {
		return err
	}
	if notes := rep.Notes(); len(notes) > 0 {
		fmt.Fprintln(st.err, "normtop: "+probes.SafeText(strings.Join(notes, "; ")))
	}
	return nil
}
