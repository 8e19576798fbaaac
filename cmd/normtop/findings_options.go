package main

import (
	"flag"
	"path/filepath"

	"github.com/normtop/normtop/findings"
	"github.com/normtop/normtop/train"
)

const findingsHelpHint = "normtop findings --help"

type findingsOptions struct {
	out    string
	only   string
	plan   bool
	scale  string // "" or scalePaper: findings.PaperPlan
	claims []findings.Claim
}

func newFindingsFlags() (*flag.FlagSet, *findingsOptions) {
	o := &findingsOptions{out: filepath.Join(runsDir, "findings")}
	fs := newFlagSet("findings")
	fs.StringVar(&o.out, "out", o.out, "directory for the run files (DIR/runs) and the reports")
	fs.StringVar(&o.only, "only", "", "claims to judge, e.g. ii,iii (default: all)")
	fs.BoolVar(&o.plan, "plan", false, "print the runs the claims need (and which are complete) without training")
	fs.StringVar(&o.scale, "scale", "", "paper: claims ii-iv on the word LM at the PowerNorm authors' size (normtop train --scale paper); weeks of CPU time, see --plan")
	return fs, o
}

// findingsPlan is the plan the command runs and findingsTrainer what
// trains it (tests put tiny ones here).
var (
	findingsPlan                     = findings.Plan
	findingsTrainer findings.Trainer = trainForFindings
)

// findingsPaperPlan is the plan of --scale paper, costed by the trainer's
// model of one seed's run.
var findingsPaperPlan = findings.PaperPlan(paperRunCPUMinutes())

// paperRunCPUMinutes is train.EstimateRun's CPU time of one paper-size
// run of the paper plan's variants, in minutes (0 when it cannot say).
func paperRunCPUMinutes() float64 {
	c := train.PaperConfig("sotu")
	c.Variants = findings.PaperWordLMVariants
	est, err := train.EstimateRun(c)
	if err != nil {
		return 0
	}
	return est.CPUSeconds / 60
}

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
	if err := checkScale(o.scale, "", ""); err != nil {
		return nil, usageError(findingsHelpHint, err)
	}
	plan := findingsPlan
	if o.scale == scalePaper {
		plan = findingsPaperPlan
	}
	if o.claims, err = findings.Select(plan, o.only); err != nil {
		return nil, usageError(findingsHelpHint, err)
	}
	return o, nil
}

const findingsHelp = `Usage: normtop findings [--out DIR] [--only ii,iii] [--scale paper] [--plan]

Trains every run that the claims of docs/findings.md need (≥ 3 seeds each; see
--plan for the exact normtop train commands), one after another, with a
progress line per run (step, ETA), and writes the report into DIR:
findings.txt, findings.md, findings.json (every claim's finding) and
report-ID.txt/.md/.json (the full report of the runs each claim reads).

Resumable: a run whose run file in DIR/runs is complete is not trained
again. Stopped (Ctrl-C) and started again, the interrupted run is trained
again from scratch; its interrupted run file is kept beside it
(NAME.interrupted-K.ntr), so nothing recorded is lost. The whole plan is
about 26 CPU-minutes on 2 cores (budget: 60). --scale paper plans claims
ii-iv at the PowerNorm authors' size instead (normtop train --scale paper);
--plan shows its runs and its estimated CPU time.

Examples:
  normtop findings                       # every claim, into runs/findings
  normtop findings --only ii,iii --out pn
  normtop findings --plan                # the runs, their commands, what is complete
  normtop findings --scale paper --plan  # the authors' size: its runs and cost

Flags:
`
