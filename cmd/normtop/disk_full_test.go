package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normtop/normtop/record"
)

// TestDiskFullMidRun (issue 34, point 7): when the disk fills mid-run, the
// error is the line to read — "no space left on device", exit 1 — with no
// "run interrupted; run file X" status line before it (there was one), and
// what was written before stays readable.
//
// The disk is full for the run file only: strace injects ENOSPC into the
// write(2) calls on that path (-P), from the third on, so the header and
// the first frames land and the process's stdout and stderr are untouched.
// No device, mount or FIFO is involved.
func TestDiskFullMidRun(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace not installed (Debian: strace; .ci/run installs it)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ntr")
	args := append([]string{"-f", "-qq", "-o", filepath.Join(dir, "trace"), "-P", path,
		"-e", "trace=write", "-e", "inject=write:error=ENOSPC:when=3+",
		buildNormtop(t), "train", "--headless", "--steps", "100000", "--record", path}, tinyTransformer...)
	cmd := exec.Command("strace", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	stderr := strings.TrimSpace(errb.String())
	if strings.HasPrefix(stderr, "strace:") {
		t.Skipf("strace cannot trace here: %s", stderr)
	}
	lines := strings.Split(stderr, "\n")
	last := lines[len(lines)-1]
	if code != exitFailure || !strings.Contains(last, "no space left on device") || !strings.Contains(last, "the run was stopped") {
		t.Fatalf("exit %d, stderr %q: want the ENOSPC line last, exit %d", code, lines, exitFailure)
	}
	for _, l := range lines[:len(lines)-1] {
		if strings.Contains(l, "run file") && !strings.Contains(l, "recording to") || strings.Contains(l, "interrupted") {
			t.Errorf("a status line before the real error: %q (stderr %q)", l, lines)
		}
	}
	r, err := record.Open(path)
	if err != nil {
		t.Fatalf("what was written before the disk filled: %v", err)
	}
	defer r.Close()
	if _, ok := r.LastStep(); !ok {
		t.Errorf("the run file holds no frame: the writes before the disk filled are lost")
	}
}
