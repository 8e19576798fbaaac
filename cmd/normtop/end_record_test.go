package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/normtop/normtop/record"
)

// TestEndRecordWhenTrainingEnds (issue 35, point 1): with the live
// dashboard, the run file gets its end record ("completed") as soon as
// training ends, while the dashboard still shows the run; quitting the
// dashboard later changes nothing in the file.
func TestEndRecordWhenTrainingEnds(t *testing.T) {
	dir := t.TempDir()
	tty, keys := openPTYPair(t) // keys typed into the master reach the dashboard
	path := filepath.Join(dir, "run.ntr")
	cmd := exec.Command(buildNormtop(t), append([]string{"train", "--steps", "30", "--record", path}, tinyTransformer...)...)
	var errb strings.Builder
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, tty, tty, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	quit := false
	defer func() {
		if !quit {
			cmd.Process.Kill()
			<-exited
		}
	}()

	var end record.End
	ended := false
	for deadline := time.Now().Add(2 * time.Minute); !ended; {
		select {
		case err := <-exited:
			quit = true
			t.Fatalf("the dashboard quit by itself: %v\nstderr: %s", err, errb.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no end record 2 minutes after the start; stderr: %s", errb.String())
		}
		if r, err := record.Open(path); err == nil {
			end, ended = r.End()
			r.Close()
		}
	}
	if end.Status != record.StatusCompleted {
		t.Errorf("end record status %q, want %q", end.Status, record.StatusCompleted)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		quit = true
		t.Fatalf("the dashboard ended with the training (%v): it should stay until q", err)
	default: // still showing the finished run
	}

	keys.Write([]byte("q"))
	select {
	case err := <-exited:
		quit = true
		if err != nil {
			t.Errorf("quit: %v; stderr: %s", err, errb.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("q did not quit the dashboard within a minute")
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("quitting changed the run file (%d bytes before, %d after)", len(before), len(after))
	}
	if e := errb.String(); !strings.Contains(e, "run completed") {
		t.Errorf("stderr %q: want the run's status line", e)
	}
}
