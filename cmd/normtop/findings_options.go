package main

import (
	"flag"
	"path/filepath"

	"github.com/normtop/normtop/findings"
)

const findingsHelpHint = "normtop findings --help"

type findingsOptions struct {
	out    string
	only   string
	plan   bool
	claims []findings.Claim
}

func newFindingsFlags() (*flag.FlagSet, *findingsOptions) {
	o := &findingsOptions{out: filepath.Join(runsDir, "findings")}
	fs := newFlagSet("findings")
	fs.StringVar(&o.out, "out", o.out, "directory for the run files (DIR/runs) and the reports")
	fs.StringVar(&o.only, "only", "", "claims to judge, e.g. ii,iii (default: all)")
	fs.BoolVar(&o.plan, "plan", false, "print the runs the claims need (and which are complete) without training")
	return fs, o
}

// findingsPlan is the plan the command runs and findingsTrainer what
// trains it (tests put tiny ones here).
var (
	findingsPlan                     = findings.Plan
	findingsTrainer findings.Trainer = trainForFindings
)

func parseFindings(args []string) (*findingsOptions, error) {
	fs, o := newFindingsFlags()
	pos, err := parseArgs(fs, args, findingsHelpHint)
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, usageErrorf(findingsHelpHint, "findings takes no file arguments (got %q); --out names its directory", pos[0])
	}
	if o.out == "" {
		return nil, usageErrorf(findingsHelpHint, "--out is empty")
	}
	if o.claims, err = findings.Select(findingsPlan, o.only); err != nil {
		return nil, usageError(findingsHelpHint, err)
	}
	return o, nil
}

const findingsHelp = `Usage: normtop findings [--out DIR] [--only ii,iii] [--plan]

Trains every run that the claims of docs/findings.md need (≥ 3 seeds each; see
--plan for the exact normtop train commands), one after another, with a
progress line per run (step, ETA), and writes the report into DIR:
findings.txt, findings.md, findings.json (every claim's finding) and
report-ID.txt/.md/.json (the full report of the runs each claim reads).

Resumable: a run whose run file in DIR/runs is complete is not trained
again. Stopped (Ctrl-C) and started again, the interrupted run is trained
again from scratch; its interrupted run file is kept beside it
(NAME.interrupted-K.ntr), so nothing recorded is lost. The whole plan is
about 26 CPU-minutes on 2 cores (budget: 60).

Examples:
  normtop findings                       # every claim, into runs/findings
  normtop findings --only ii,iii --out pn
  normtop findings --plan                # the runs, their commands, what is complete

Flags:
`
