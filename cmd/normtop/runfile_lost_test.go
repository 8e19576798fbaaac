package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/normtop/normtop/record"
)

// TestRunFileLostSaidAtOnce (issue 34, point 5): a headless run whose run
// file's path stops naming it mid-run (rm -rf of its directory, another
// file renamed over it) says so on stderr within seconds, once, while it
// goes on training; stopped later, it saves the whole recording and ends
// with the LostError line and exit 1, as before.
func TestRunFileLostSaidAtOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		lose func(t *testing.T, path string)
		why  string
	}{
		{"rm -rf the directory", func(t *testing.T, path string) {
			if err := os.RemoveAll(filepath.Dir(path)); err != nil {
				t.Fatal(err)
			}
		}, "its directory was removed"},
		{"renamed over", func(t *testing.T, path string) {
			other := path + ".other"
			if err := os.WriteFile(other, []byte("another file"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}, "another file was put in its place"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			tmp := t.TempDir() // the recovery's place when the directory is gone
			path := filepath.Join(dir, "runs", "run.ntr")
			cmd := exec.Command(buildNormtop(t), append([]string{"train", "--headless", "--steps", "1000000", "--record", path}, tinyTransformer...)...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			defer func() {
				select {
				case <-exited:
				default:
					cmd.Process.Kill()
				}
			}()
			lines := make(chan string, 100)
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			var got []string
			waitFor := func(what string, within time.Duration) {
				t.Helper()
				deadline := time.After(within)
				for {
					select {
					case l, ok := <-lines:
						if !ok {
							t.Fatalf("normtop ended before %q; stderr: %q", what, got)
						}
						got = append(got, l)
						if strings.Contains(l, what) {
							return
						}
					case <-deadline:
						t.Fatalf("no %q within %v; stderr: %q", what, within, got)
					}
				}
			}
			waitFor("recording to", time.Minute)
			time.Sleep(300 * time.Millisecond) // some frames written
			c.lose(t, path)
			waitFor("no longer there ("+c.why+"); the run goes on recording", 5*time.Second)
			time.Sleep(500 * time.Millisecond) // still training: more frames into the open file
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			for l := range lines {
				got = append(got, l)
			}
			err = cmd.Wait()
			close(exited)
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			warned := 0
			for _, l := range got {
				if strings.Contains(l, "the run goes on recording") {
					warned++
				}
			}
			last := got[len(got)-1]
			if warned != 1 || code != exitFailure || !strings.Contains(last, "no longer there ("+c.why+")") || !strings.Contains(last, "saved to") {
				t.Fatalf("exit %d, stderr %q: want the warning once, then the LostError line, exit %d", code, got, exitFailure)
			}
			saved := strings.TrimSpace(last[strings.LastIndex(last, "saved to ")+len("saved to "):])
			r, err := record.Open(saved)
			if err != nil {
				t.Fatalf("the saved recording %s: %v", saved, err)
			}
			defer r.Close()
			if last, ok := r.LastStep(); !ok || last < 2 {
				t.Errorf("the saved recording's last step is %d (%v): the frames after the loss are missing", last, ok)
			}
		})
	}
}
