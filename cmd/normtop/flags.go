package main

import (
	"errors"
	"flag"
	"io"
	"strings"
)

// newFlagSet returns a flag set that reports errors as values instead of
// printing them: the command prints one line, not the flag package's usage
// dump.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// errHelp is returned by parseArgs when -h/--help was given; the command
// then prints its help on stdout and exits 0.
var errHelp = flag.ErrHelp

// parseArgs parses flags that may come before, between or after positional
// arguments ("normtop replay run.ntr --follow") and returns the positional
// ones. Everything after "--" is positional. Errors are usage errors whose
// hint names the command's --help.
func parseArgs(fs *flag.FlagSet, args []string, help string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, usageError(help, errors.New(tidyFlagError(err.Error())))
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// flag.Parse stops at the first positional argument or after "--";
		// tell the two apart by what it consumed.
		consumed := args[:len(args)-len(rest)]
		if len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// tidyFlagError rewrites the flag package's messages to name flags the way
// the help does (--steps, not -steps).
func tidyFlagError(msg string) string {
	msg = strings.Replace(msg, "flag provided but not defined: -", "unknown flag --", 1)
	msg = strings.Replace(msg, "flag needs an argument: -", "flag needs a value: --", 1)
	if strings.HasPrefix(msg, "invalid value ") {
		// invalid value "x" for flag -steps: parse error
		msg = strings.Replace(msg, " for flag -", " for --", 1)
		msg = strings.Replace(msg, `: parse error`, `: not a number`, 1)
		msg = strings.Replace(msg, `: value out of range`, `: out of range`, 1)
	}
	return msg
}
