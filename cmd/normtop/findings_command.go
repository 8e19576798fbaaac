package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/normtop/normtop/findings"
)

func runFindings(args []string, st streams) error {
	o, err := parseFindings(args)
	if errors.Is(err, errHelp) {
		flags, _ := newFindingsFlags()
		fmt.Fprint(st.out, findingsHelp)
		printFlags(st.out, flags)
		return nil
	}
	if err != nil {
		return err
	}
	if o.plan {
		return printPlan(st.out, o)
	}
	// Headless: SIGHUP (an SSH disconnect) does not stop it; SIGINT and
	// SIGTERM stop the run in progress cleanly.
	sig := watchSignals(context.Background(), true)
	defer sig.stop()
	err = findings.Execute(sig.ctx, findings.Options{Dir: o.out, Claims: o.claims, Train: findingsTrainer, Log: st.err})
	var in *findings.Interrupted
	if errors.As(err, &in) {
		code := exitFailure
		if s := sig.signal(); s != nil {
			code = signalExitCode(s)
		}
		return &cliError{code: code, err: in}
	}
	return err
}

// printPlan lists the claims, their runs (with the exact train commands and
// whether their run file is complete) and the planned cost.
func printPlan(w io.Writer, o *findingsOptions) error {
	runs, err := findings.RunsOf(o.claims)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "normtop findings: %d claim(s), %d run(s), into %s\n\n", len(o.claims), len(runs), o.out)
	for _, c := range o.claims {
		fmt.Fprintf(w, "(%s) %s\n    report reads: %s\n", c.ID, c.Title, strings.Join(c.Reads, ", "))
	}
	total := 0.0
	fmt.Fprintln(w)
	for _, r := range runs {
		total += r.CPUMin
		fmt.Fprintf(w, "%s (planned %s CPU-min; %s)\n    %s\n", r.Name, cpuMinutes(r.CPUMin), findings.StateLine(r.Path(o.out)), r.Command())
	}
	fmt.Fprintf(w, "\nplanned: %s CPU-minutes on 2 cores", cpuMinutes(total))
	if total > 120 { // the paper scale: in units one can picture
		fmt.Fprintf(w, " (%.0f CPU-hours: %.1f days on 2 cores)", total/60, total/60/2/24)
	}
	fmt.Fprintln(w)
	return nil
}

// cpuMinutes is a planned cost in CPU-minutes: whole minutes from 100 on
// (the paper scale's 10⁵), else four significant digits.
func cpuMinutes(m float64) string {
	if m >= 100 {
		return strconv.FormatFloat(m, 'f', 0, 64)
	}
	return strconv.FormatFloat(m, 'g', 4, 64)
}
