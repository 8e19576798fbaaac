package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
	"github.com/normtop/normtop/tui"
)

// runWorkspace opens the workspace over a directory's run files or the
// files named.
func runWorkspace(o *replayOptions, st streams) error {
	paths, note := o.paths, ""
	if o.dir != "" {
		var err error
		if paths, err = runFiles(o.dir); err != nil {
			return dataError(err)
		}
		if len(paths) == 0 {
			note = fmt.Sprintf("no run files (*.ntr) in %s: record one with normtop train, or name files: normtop replay A.ntr B.ntr", o.dir)
		}
	}
	sig := watchSignals(context.Background(), false)
	defer sig.stop()
	model := tui.NewWorkspace(paths, openForWorkspace, tui.Options{Speed: o.speed, NoColor: o.noColor}, note)
	input, inNote := dashboardInput(st.in) // stdin at /dev/null or closed: display-only, never a crash
	if inNote != "" {
		fmt.Fprintln(st.err, "normtop: "+probes.SafeText(inNote))
	}
	prog := tea.NewProgram(model, tea.WithContext(sig.ctx), tea.WithInput(input), tea.WithOutput(st.out),
		tea.WithoutSignalHandler())
	if _, err := prog.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("dashboard: %w", err)
	}
	return nil
}

// runFiles lists the run files of dir (*.ntr, links such as latest left
// out: they name a file listed already), in name order (run ids start
// with their start time).
func runFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 || e.IsDir() || !strings.HasSuffix(e.Name(), ".ntr") {
			continue
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	sort.Strings(out)
	return out, nil
}

// noteReader is a run file that can say what was not whole about it once
// read (tui.Noter).
type noteReader struct {
	*record.Reader
	path string
}

func (n noteReader) Note() string { return runFileNote(n.path, n.Reader, false, "") }

// openForWorkspace is the workspace's tui.Opener.
func openForWorkspace(path string) (tui.ReplaySource, func(), error) {
	r, err := record.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return noteReader{r, path}, func() { r.Close() }, nil
}
