package record

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
)

// TestCloseSavesALostRecording: a run file whose name stopped naming it
// while it was written (deleted, its directory removed, another file
// renamed over it) is copied to a recovery file, and Close says so; the
// copy reads back whole. A file that stayed put closes as before.
func TestCloseSavesALostRecording(t *testing.T) {
	for _, c := range []struct {
		name    string
		lose    func(t *testing.T, path string)
		why     string
		besides bool // the recovery file is beside the path (else in the temp dir)
	}{
		{"kept", func(*testing.T, string) {}, "", true},
		{"deleted", func(t *testing.T, path string) { must(t, os.Remove(path)) }, "deleted", true},
		{"directory removed", func(t *testing.T, path string) { must(t, os.RemoveAll(filepath.Dir(path))) }, "directory was removed", false},
		{"renamed over", func(t *testing.T, path string) {
			other := filepath.Join(filepath.Dir(path), "other.ntr")
			must(t, os.WriteFile(other, []byte("another file"), 0o644))
			must(t, os.Rename(other, path))
		}, "another file was put in its place", true},
		{"moved away", func(t *testing.T, path string) { must(t, os.Rename(path, path+".moved")) }, "renamed or moved away", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			path := filepath.Join(tmp, "runs", "run.ntr")
			meta := testMeta(2, 3)
			w, err := Create(path, meta)
			must(t, err)
			for s := 0; s < 50; s++ {
				must(t, w.Write(probes.Frame{Variant: s % 2, Step: s / 2, TrainLoss: float64(s)}))
			}
			c.lose(t, path)
			err = w.Close(End{})
			var lost *LostError
			if c.why == "" {
				if err != nil {
					t.Fatalf("Close = %v, want nil", err)
				}
				return
			}
			if !errors.As(err, &lost) {
				t.Fatalf("Close = %v, want a *LostError", err)
			}
			if !strings.Contains(err.Error(), c.why) || lost.Saved == "" {
				t.Fatalf("Close = %q, want %q and a saved copy", err, c.why)
			}
			wantDir := tmp
			if c.besides {
				wantDir = filepath.Dir(path)
			}
			if filepath.Dir(lost.Saved) != wantDir {
				t.Errorf("saved to %s, want a file in %s", lost.Saved, wantDir)
			}
			r, err := Open(lost.Saved)
			must(t, err)
			defer r.Close()
			n := 0
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				must(t, err)
				n++
			}
			if e, ok := r.End(); n != 50 || !ok || e.Status != StatusCompleted {
				t.Errorf("recovered file: %d frames, end %v %v; want 50 and completed", n, e, ok)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestReaderPathLost: a follower learns that its path now names another
// file, and keeps reading the file it opened.
func TestReaderPathLost(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ntr")
	w, err := Create(path, testMeta(1, 2))
	must(t, err)
	must(t, w.Write(probes.Frame{Step: 1}))
	must(t, w.Flush())
	r, err := Open(path)
	must(t, err)
	defer r.Close()
	if why := r.PathLost(); why != "" {
		t.Fatalf("PathLost = %q before any change", why)
	}
	other := filepath.Join(dir, "other")
	must(t, os.WriteFile(other, []byte("x"), 0o644))
	must(t, os.Rename(other, path))
	if why := r.PathLost(); why != "another file was put in its place" {
		t.Fatalf("PathLost = %q after a rename over the path", why)
	}
	must(t, w.Write(probes.Frame{Step: 2}))
	must(t, w.Flush())
	for want := 1; want <= 2; want++ {
		f, err := r.Next()
		must(t, err)
		if f.Step != want {
			t.Fatalf("step %d, want %d", f.Step, want)
		}
	}
	w.Close(End{})
}

// TestWriterSaysAtOnceWhenPathLost: while the run is written, the Writer's
// periodic check finds the path gone or replaced within a few flusher ticks
// and says so once (OnPathLost), keeps writing to the open file, and Close
// saves everything written, before and after, as without the check.
func TestWriterSaysAtOnceWhenPathLost(t *testing.T) {
	old := pathCheckEvery
	pathCheckEvery = 0 // every flusher tick (flushEvery)
	t.Cleanup(func() { pathCheckEvery = old })
	for _, c := range []struct {
		name string
		lose func(t *testing.T, path string)
		why  string
	}{
		{"kept", func(*testing.T, string) {}, ""},
		{"renamed over", func(t *testing.T, path string) {
			other := filepath.Join(filepath.Dir(path), "other.ntr")
			must(t, os.WriteFile(other, []byte("another file"), 0o644))
			must(t, os.Rename(other, path))
		}, "another file was put in its place"},
		{"rm -rf the directory", func(t *testing.T, path string) { must(t, os.RemoveAll(filepath.Dir(path))) }, "its directory was removed"},
		{"deleted", func(t *testing.T, path string) { must(t, os.Remove(path)) }, "it was deleted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			path := filepath.Join(tmp, "runs", "run.ntr")
			w, err := Create(path, testMeta(1, 2))
			must(t, err)
			said := make(chan string, 10)
			w.OnPathLost(func(why string) { said <- why })
			step := 0
			write := func(n int) {
				for range n {
					step++
					must(t, w.Write(probes.Frame{Step: step, TrainLoss: float64(step)}))
				}
			}
			write(20)
			c.lose(t, path)
			write(20)
			// Several flusher ticks: the check runs at each (flushEvery).
			wait := 10 * flushEvery
			if c.why == "" {
				wait = 3 * flushEvery
			}
			select {
			case why := <-said:
				if why != c.why {
					t.Fatalf("OnPathLost(%q), want %q", why, c.why)
				}
			case <-time.After(wait):
				if c.why != "" {
					t.Fatalf("no OnPathLost within %v of the path's loss (%s)", wait, c.why)
				}
			}
			write(20) // still written: to the open descriptor
			time.Sleep(3 * flushEvery)
			if len(said) > 0 {
				t.Fatalf("OnPathLost called again (%q): it says so once", <-said)
			}
			err = w.Close(End{})
			if c.why == "" {
				must(t, err)
				return
			}
			var lost *LostError
			if !errors.As(err, &lost) || lost.Saved == "" {
				t.Fatalf("Close = %v, want a *LostError with a saved copy", err)
			}
			r, err := Open(lost.Saved)
			must(t, err)
			defer r.Close()
			n := 0
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				must(t, err)
				n++
			}
			if n != step {
				t.Errorf("recovered file holds %d frames, want all %d written", n, step)
			}
		})
	}
}
