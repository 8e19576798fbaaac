package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/normtop/normtop/record"
)

// openPTY opens a pseudo-terminal pair (120×40) and keeps its output
// drained, so that the dashboard, writing to the slave, never blocks.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	slave, _ := openPTYPair(t)
	return slave
}

// openPTYPair is openPTY that also returns the master, to type keys into.
func openPTYPair(t *testing.T) (slave, master *os.File) {
	t.Helper()
	var err error
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip("no pseudo-terminals:", err)
	}
	t.Cleanup(func() { master.Close() })
	var unlock int32
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skip("unlockpt:", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skip("ptsname:", e)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip("pty slave:", err)
	}
	t.Cleanup(func() { slave.Close() })
	ws := [4]uint16{40, 120, 0, 0}
	syscall.Syscall(syscall.SYS_IOCTL, slave.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
	go io.Copy(io.Discard, master)
	return slave, master
}

// shellStdin runs argv through sh with stdin at /dev/null or closed (an
// exec.Cmd always gives the child an open fd 0).
func shellStdin(t *testing.T, stdin string, argv []string) *exec.Cmd {
	t.Helper()
	redir := map[string]string{"devnull": "</dev/null", "closed": "<&-"}[stdin]
	return exec.Command("/bin/sh", append([]string{"-c", `exec "$0" "$@" ` + redir}, argv...)...)
}

// TestDashboardWithoutUsableStdin (issue 25, case 4): with stdout a
// terminal and stdin at /dev/null or closed, train's dashboard runs the
// whole run display-only (one line says so) instead of stopping after a few
// steps with "could not create cancelable reader"; replay's likewise keeps
// running until SIGTERM.
func TestDashboardWithoutUsableStdin(t *testing.T) {
	dir := t.TempDir()
	for _, stdin := range []string{"devnull", "closed"} {
		tty := openPTY(t)
		path := filepath.Join(dir, stdin+".ntr")
		args := append([]string{"train", "--steps", "120", "--record", path}, tinyTransformer...)
		cmd := shellStdin(t, stdin, append([]string{buildNormtop(t)}, args...))
		var errb strings.Builder
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, tty, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		last := 0
		for deadline := time.Now().Add(90 * time.Second); last < 120 && time.Now().Before(deadline); {
			select {
			case err := <-exited:
				t.Fatalf("stdin %s: the dashboard ended at step %d: %v\nstderr: %s", stdin, last, err, errb.String())
			case <-time.After(100 * time.Millisecond):
			}
			if r, err := record.Open(path); err == nil {
				last, _ = r.LastStep()
				r.Close()
			}
		}
		cmd.Process.Signal(syscall.SIGTERM)
		<-exited
		if last < 120 {
			t.Errorf("stdin %s: the run reached step %d of 120", stdin, last)
		}
		if e := errb.String(); !strings.Contains(e, "display-only") || strings.Contains(e, "cancelable") {
			t.Errorf("stdin %s: stderr %q: want the display-only line", stdin, e)
		}

		// Replay of that run file, with the same stdin.
		rcmd := shellStdin(t, stdin, []string{buildNormtop(t), "replay", path, "--speed", "1"})
		var rerr strings.Builder
		rcmd.Dir, rcmd.Stdout, rcmd.Stderr = dir, tty, &rerr
		if err := rcmd.Start(); err != nil {
			t.Fatal(err)
		}
		rexited := make(chan error, 1)
		go func() { rexited <- rcmd.Wait() }()
		select {
		case err := <-rexited:
			t.Errorf("stdin %s: replay ended by itself: %v\nstderr: %s", stdin, err, rerr.String())
		case <-time.After(3 * time.Second):
			rcmd.Process.Signal(syscall.SIGTERM)
			<-rexited
		}
		if e := rerr.String(); !strings.Contains(e, "display-only") || strings.Contains(e, "cancelable") {
			t.Errorf("stdin %s: replay's stderr %q: want the display-only line", stdin, e)
		}
	}
}
