package main

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/normtop/normtop/probes"
)

// Exit codes, documented in docs/usage.md and in `normtop --help`.
const (
	exitOK       = 0
	exitFailure  = 1 // anything not covered below
	exitUsage    = 2 // bad command, flag, flag value or variant spec
	exitData     = 3 // missing, unreadable or corrupt data or run file
	exitDiverged = 4 // every variant of the run diverged
	// A run stopped by SIGINT or SIGTERM exits with 128+signal number (130,
	// 143), as shells do, after closing its run file.
)

// cliError is an error that knows its exit code and, for usage errors, the
// help command to point at.
type cliError struct {
	code int
	hint string // e.g. "normtop train --help"; "" for none
	err  error
}

func (e *cliError) Error() string { return e.err.Error() }
func (e *cliError) Unwrap() error { return e.err }

func usageError(hint string, err error) error {
	return &cliError{code: exitUsage, hint: hint, err: err}
}

func usageErrorf(hint, format string, args ...any) error {
	return usageError(hint, fmt.Errorf(format, args...))
}

func dataError(err error) error { return &cliError{code: exitData, err: err} }

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ce *cliError
	if errors.As(err, &ce) {
		return ce.code
	}
	return exitFailure
}

// maxErrorLine bounds an error line's message: a flag value or a name from
// a file of any length is echoed in part, its start and its end kept.
const maxErrorLine = 1000

// errorLine renders err as the single line printed on stderr: "normtop: "
// plus the message, newlines folded, control characters escaped
// (probes.SafeText: a flag value or a name from a run file may hold any
// byte), cut in the middle past maxErrorLine bytes, and the help hint for
// usage errors.
func errorLine(err error) string {
	msg := strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")), " ")
	if len(msg) > maxErrorLine {
		head, tail := msg[:maxErrorLine*3/4], msg[len(msg)-maxErrorLine/4:]
		for len(head) > 0 && !utf8.RuneStart(msg[len(head)]) {
			head = head[:len(head)-1]
		}
		for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
			tail = tail[1:]
		}
		msg = fmt.Sprintf("%s … (%d bytes cut) … %s", head, len(msg)-len(head)-len(tail), tail)
	}
	msg = probes.SafeText(msg)
	var ce *cliError
	if errors.As(err, &ce) && ce.hint != "" {
		msg += " (see " + ce.hint + ")"
	}
	return "normtop: " + msg
}
