package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalWhileLoading: SIGINT or SIGTERM while the data loads from a FIFO
// (no writer yet: open blocks; or a writer that stalls: read blocks) stops
// normtop within a second with one line and 130/143, and nothing recorded.
func TestSignalWhileLoading(t *testing.T) {
	bin := buildNormtop(t)
	for _, c := range []struct {
		name    string
		sig     syscall.Signal
		code    int
		writer  bool
		sigName string
	}{
		{"SIGTERM, no writer", syscall.SIGTERM, 143, false, "SIGTERM"},
		{"SIGINT, stalled writer", syscall.SIGINT, 130, true, "SIGINT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "data.txt")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip("mkfifo:", err)
			}
			wrote := make(chan struct{}) // the writer has written: normtop reads the FIFO
			if c.writer {
				stop := make(chan struct{})
				defer close(stop)
				go func() {
					w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
					if err != nil {
						return
					}
					defer w.Close()
					w.Write([]byte("the first words of a text that never ends"))
					close(wrote)
					<-stop
				}()
			}
			cmd := exec.Command(bin, "train", "--headless", "--model", "transformer", "--data", fifo, "--steps", "5")
			cmd.Dir = dir
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The signal goes in once normtop is loading (its signal watch
			// starts before the load), never after a fixed sleep: with a
			// writer, once the writer's open returned and it wrote (normtop
			// has opened the FIFO); without, once a thread of normtop waits
			// in the kernel's FIFO open.
			if c.writer {
				select {
				case <-wrote:
				case <-time.After(time.Minute):
					t.Fatal("normtop did not open the FIFO within a minute")
				}
			} else {
				waitFIFOOpen(t, cmd.Process.Pid)
			}
			sent := time.Now()
			cmd.Process.Signal(c.sig)
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			var err error
			select {
			case err = <-waited:
			case <-time.After(3 * time.Second):
				cmd.Process.Kill()
				<-waited
				t.Fatalf("still running 3 s after %v; stderr %q", c.sig, errb.String())
			}
			if lag := time.Since(sent); lag > time.Second {
				t.Errorf("stopped %v after %v, want < 1 s", lag, c.sig)
			}
			res := result{stdout: out.String(), stderr: errb.String()}
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				res.code = ee.ExitCode()
			}
			checkOneLine(t, c.name, res, c.code, c.sigName, "while loading the data")
			if _, err := os.Stat(filepath.Join(dir, "runs")); err == nil {
				t.Error("a runs/ directory was created for a run that never started")
			}
			if strings.Contains(res.stdout, "step") {
				t.Errorf("stdout: %q", res.stdout)
			}
		})
	}
}

// TestSIGTERMDuringLongEvaluation: SIGTERM while a long validation runs
// (the whole validation split at d-model 128, one window per batch: seconds)
// stops the run within a second, exit 143, with a complete run file that
// says "interrupted".
func TestSIGTERMDuringLongEvaluation(t *testing.T) {
	dir := t.TempDir()
	r := startNormtop(t, dir, "train", "--headless", "--steps", "100", "--log-every", "1", "--eval-every", "2",
		"--eval-size", "1000000", "--layers", "2", "--d-model", "128", "--heads", "4", "--seq-len", "64", "--batch", "1",
		"--variants", "layernorm", "--svd-every", "0", "--record", "eval.ntr")
	r.waitSteps(1, "step 1")           // step 2 trains one window, then evaluates
	time.Sleep(300 * time.Millisecond) // inside the evaluation
	sent := time.Now()
	r.stop(syscall.SIGTERM, filepath.Join(dir, "eval.ntr")) // exit 143, run file interrupted
	// stop also reads the small run file back, well under 100 ms.
	lag := time.Since(sent)
	if lag > 1500*time.Millisecond {
		t.Errorf("SIGTERM during the evaluation: stopped and checked after %v, want the process gone within 1 s", lag)
	}
	t.Logf("stopped and checked %v after SIGTERM", lag)
}

// waitFIFOOpen polls until a thread of process pid waits in the kernel's
// FIFO open for a writer (wchan wait_for_partner). A running thread reads
// 0; where /proc never names a wait (no kernel symbols), the test cannot
// tell the phase and is skipped rather than timed.
func waitFIFOOpen(t *testing.T, pid int) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(time.Minute)
	everNamed := false
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "wchan"))
		named := false
		for _, p := range tasks {
			b, err := os.ReadFile(p)
			w := strings.TrimSpace(string(b))
			if err != nil || w == "" || w == "0" {
				continue
			}
			named = true
			if w == "wait_for_partner" {
				return
			}
		}
		everNamed = everNamed || named
		if !everNamed && time.Since(start) > 20*time.Second {
			t.Skip("/proc/PID/task/*/wchan gives no symbol names: cannot tell when normtop opens the FIFO")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("normtop did not wait on the FIFO's open within a minute")
}
