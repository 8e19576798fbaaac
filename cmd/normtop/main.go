package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// streams are the process's standard files; commands write only to these.
type streams struct {
	in  *os.File
	out *outStream
	err *os.File
}

func main() {
	quitFallback()
	st := streams{in: os.Stdin, out: &outStream{File: os.Stdout}, err: os.Stderr}
	err := run(os.Args[1:], st)
	if err != nil && !errors.Is(err, errQuiet) {
		fmt.Fprintln(st.err, errorLine(err))
	}
	os.Exit(exitCode(err))
}

// errQuiet carries an exit code whose message was already printed.
var errQuiet = errors.New("already reported")

const mainHelp = `normtop: top for normalization layers.

Trains one model with several normalization variants side by side and shows
every norm layer's statistics live, headless, or from a recorded run file.

Usage:
  normtop [train flags]          same as normtop train
  normtop train [flags]          train and watch (dashboard, or log lines when stdout is not a terminal)
  normtop replay FILE [flags]    the dashboard (or log lines) from a run file; --follow for a live one
  normtop export FILE [flags]    a run file as CSV, JSON Lines or a Markdown table
  normtop report FILE... [flags] per-variant summaries over seeds and the papers' findings
  normtop plot FILE... [flags]   one chart (SVG, PNG, PDF) of a probe, loss or spectrum, runs overlaid
  normtop findings [flags]       train every run docs/findings.md's claims need, then their report
  normtop serve [DIR] [flags]    the workspace of DIR's runs over SSH, to the keys of an authorized-keys file
  normtop variants               the normalization variants and their options
  normtop version                version and build (also: normtop --version)

Every command takes --help. Examples:
  normtop                                          # the default run, with the dashboard
  normtop train --model mlp --variants layernorm,batchnorm,powernorm --epochs 1
  normtop train --headless --steps 2000 > log.txt # no dashboard; runs/latest names the run file
  normtop replay --follow runs/latest              # watch a run that is still going (e.g. over ssh -t)
  normtop export runs/latest --format md

Exit codes: 0 ok, 1 other failure, 2 usage error, 3 data error (missing,
unreadable or corrupt data or run file), 4 every variant diverged, 130/143 run
stopped by SIGINT/SIGTERM (its run file is complete and says "interrupted").
`

// commands are the subcommands, in the order errors list them.
var commands = []struct {
	name string
	run  func(args []string, st streams) error
}{
	{"train", runTrain},
	{"replay", runReplay},
	{"export", runExport},
	{"report", runReport},
	{"plot", runPlot},
	{"findings", runFindings},
	{"serve", runServe},
	{"variants", runVariants},
	{"version", runVersion},
}

// run dispatches to a subcommand. Flags without a command mean train.
func run(args []string, st streams) (err error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !isHelpFlag(args[0]) {
		return runTrain(args, st)
	}
	cmd, rest := args[0], args[1:]
	if cmd != "train" {
		// Their output is the product: one that could not be written fails.
		defer func() { err = st.out.check(err) }()
	}
	switch cmd {
	case "--version":
		cmd = "version"
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			return run([]string{rest[0], "--help"}, st)
		}
		fmt.Fprint(st.out, mainHelp)
		return nil
	}
	names := make([]string, len(commands))
	for i, c := range commands {
		if c.name == cmd {
			return c.run(rest, st)
		}
		names[i] = c.name
	}
	return usageErrorf("normtop --help", "unknown command %q (commands: %s)", cmd, strings.Join(names, ", "))
}

func isHelpFlag(s string) bool {
	switch s {
	case "-h", "-help", "--help", "--version":
		return true
	}
	return false
}
