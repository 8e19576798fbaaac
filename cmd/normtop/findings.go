package main

import (
	tea "charm.land/bubbletea/v2"

	"github.com/normtop/normtop/report"
	"github.com/normtop/normtop/tui"
)

// sendFindings judges the papers' findings on the run file (what `normtop
// report FILE` prints) and hands their one-line verdicts to the dashboard's
// Summary screen. A file the report cannot read sends nothing: the
// dashboard already says what is wrong with it. Send returns at once when
// the dashboard has quit.
func sendFindings(prog *tea.Program, path string) {
	if lines := findingLines(path); len(lines) > 0 {
		prog.Send(tui.FindingsMsg{Lines: lines})
	}
}

// findingLines reads only what the verdicts need (report.FindingLines):
// the dashboard holds the run's charts meanwhile, and a long run's every
// probe value would be several times the dashboard's own memory.
func findingLines(path string) []string {
	lines, err := report.FindingLines([]string{path})
	if err != nil {
		return nil
	}
	return lines
}
