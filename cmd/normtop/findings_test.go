package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/normtop/normtop/findings"
	"github.com/normtop/normtop/record"
)

// tinyFindings puts a plan of two tiny transformer runs (3 seeds each) in
// place of the real one for the test, training them with the real trainer;
// interruptAt > 0 sends this process SIGINT (Ctrl-C) when the second run
// reaches that step (the test may change *interruptAt between runs).
func tinyFindings(t *testing.T, interruptAt *int) []findings.Run {
	a := findings.Run{Name: "a", Args: append([]string{"--steps", "12", "--seeds", "1,2,3"}, tinyTransformer...)}
	b := findings.Run{Name: "b", Args: append([]string{"--steps", "24", "--seeds", "1,2,3"}, tinyTransformer...)}
	b.Args[len(b.Args)-1] = "layernorm,batchnorm"
	plan, trainer := findingsPlan, findingsTrainer
	t.Cleanup(func() { findingsPlan, findingsTrainer = plan, trainer })
	findingsPlan = []findings.Claim{{ID: "iii", Title: "tiny", Runs: []findings.Run{a, b}, Reads: []string{"b"}}}
	findingsTrainer = func(ctx context.Context, args []string, path string, progress func(findings.Progress)) error {
		sent := false
		return trainForFindings(ctx, args, path, func(p findings.Progress) {
			if *interruptAt > 0 && strings.Contains(path, "/b-") && p.Step >= *interruptAt && !sent {
				sent = true
				syscall.Kill(os.Getpid(), syscall.SIGINT)
			}
			progress(p)
		})
	}
	return []findings.Run{a, b}
}

func streamsIn(t *testing.T, dir string) (streams, func() string) {
	errf, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	outf, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { errf.Close(); outf.Close() })
	return streams{in: os.Stdin, out: &outStream{File: outf}, err: errf}, func() string {
		b, _ := os.ReadFile(errf.Name())
		return string(b)
	}
}

// TestFindingsCtrlCThenAgain: Ctrl-C during the second run ends findings
// with exit 130 and one line naming the run and its kept run file; started
// again, the complete first run is not trained again, the interrupted file
// is kept aside (nothing recorded is lost), the second run is trained from
// scratch and the reports are written.
func TestFindingsCtrlCThenAgain(t *testing.T) {
	dir := t.TempDir()
	interruptAt := 6
	runs := tinyFindings(t, &interruptAt)
	out := filepath.Join(dir, "out")
	st, stderr := streamsIn(t, dir)
	err := run([]string{"findings", "--out", out}, st)
	if code := exitCode(err); code != 130 {
		t.Fatalf("exit %d (%v), want 130\n%s", code, err, stderr())
	}
	line := errorLine(err)
	if strings.Contains(line, "\n") || !strings.Contains(line, "stopped while training run b") || !strings.Contains(line, "trained again from scratch") {
		t.Errorf("error line: %q", line)
	}
	pathB := runs[1].Path(out)
	rd, err := record.Open(pathB)
	if err != nil {
		t.Fatal(err)
	}
	end, ok := rd.End()
	rd.Close()
	if !ok || end.Status != record.StatusInterrupted {
		t.Fatalf("run b's file: end %+v %v, want interrupted", end, ok)
	}
	partial, _ := os.ReadFile(pathB)
	interruptAt = 0

	st2, stderr2 := streamsIn(t, t.TempDir())
	if err := run([]string{"findings", "--out", out}, st2); err != nil {
		t.Fatalf("again: %v\n%s", err, stderr2())
	}
	log := stderr2()
	if !strings.Contains(log, "[1/2] a: complete") || !strings.Contains(log, "[2/2] b: "+pathB+" was not complete (interrupted)") {
		t.Errorf("second run's log:\n%s", log)
	}
	kept, err := os.ReadFile(strings.TrimSuffix(pathB, ".ntr") + ".interrupted-1.ntr")
	if err != nil || string(kept) != string(partial) {
		t.Errorf("interrupted run file not kept aside intact: %v", err)
	}
	for _, f := range []string{"findings.txt", "findings.md", "findings.json", "report-iii.txt"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestFindingsBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"findings", "--only", "ii,viii"}, `unknown claim "viii" (claims: i, ii, iii, iv, v, vi, vii)`},
		{[]string{"findings", "--out", ""}, "--out is empty"},
		{[]string{"findings", "runs/x.ntr"}, "takes no file arguments"},
	} {
		res := normtop(t, dir, tc.args...)
		if res.code != 2 || !strings.Contains(res.stderr, tc.want) || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line with %q", tc.args, res.code, res.stderr, tc.want)
		}
	}
	if res := normtop(t, dir, "findings", "--plan", "--only", "ii"); res.code != 0 || !strings.Contains(res.stdout, "--model resnet") {
		t.Errorf("--plan: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := normtop(t, dir, "findings", "--help"); res.code != 0 || !strings.Contains(res.stdout, "Resumable") {
		t.Errorf("--help: exit %d\n%s", res.code, res.stdout)
	}
}
