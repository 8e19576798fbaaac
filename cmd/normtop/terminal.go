package main

import (
	"os"

	"github.com/charmbracelet/x/term"
)

// isTerminal reports whether f is a terminal, which decides between the
// dashboard and headless lines. (A plain character-device test would take
// /dev/null for a terminal.)
func isTerminal(f *os.File) bool {
	return term.IsTerminal(f.Fd())
}
