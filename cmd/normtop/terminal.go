package main

import (
	"io"
	"io/fs"
	"os"

	"github.com/charmbracelet/x/term"
)

// isTerminal reports whether f is a terminal, which decides between the
// dashboard and headless lines. (A plain character-device test would take
// /dev/null for a terminal.)
func isTerminal(f *os.File) bool {
	return term.IsTerminal(f.Fd())
}

// dashboardInput is the dashboard's keyboard: stdin when it is a terminal,
// a pipe or a socket (what Bubble Tea's reader can wait on with epoll). A
// stdin at /dev/null, a regular file or a closed stdin cannot be waited on
// (Bubble Tea stops the program after a few steps: "could not create
// cancelable reader"), so the dashboard runs display-only, without input,
// and note says so: Ctrl-C (SIGINT from the terminal) or SIGTERM stops it.
func dashboardInput(in *os.File) (input io.Reader, note string) {
	if in == nil {
		return nil, "standard input is closed: the dashboard is display-only (stop it with Ctrl-C or SIGTERM)"
	}
	fi, err := in.Stat()
	switch {
	case err != nil:
		return nil, "standard input is closed: the dashboard is display-only (stop it with Ctrl-C or SIGTERM)"
	case isTerminal(in), fi.Mode()&(fs.ModeNamedPipe|fs.ModeSocket) != 0:
		return in, ""
	}
	return nil, "standard input is not a terminal: the dashboard is display-only, without keys (stop it with Ctrl-C or SIGTERM)"
}
