package record

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesNonRegular: a FIFO with no writer, a character device and a
// directory are refused at once with one message saying what they are,
// instead of blocking in open(2) or reading /dev/zero forever.
func TestOpenRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "run.ntr")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	t.Cleanup(func() {
		// Unblock an open(2) still waiting for a writer (the bug this tests).
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	link := filepath.Join(dir, "latest")
	if err := os.Symlink("run.ntr", link); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ path, want string }{
		{fifo, "named pipe"}, {link, "named pipe"}, {dir, "directory"},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, struct{ path, want string }{"/dev/zero", "character device"})
	}
	for _, c := range cases {
		done := make(chan error, 1)
		go func() {
			r, err := Open(c.path)
			if r != nil {
				r.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "regular file") {
				t.Errorf("Open(%s) = %v, want an error saying %q and \"regular file\"", c.path, err, c.want)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("Open(%s) still blocked after 2 s", c.path)
		}
	}
}
