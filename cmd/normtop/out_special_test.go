package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOutNeverReplacesWhatIsNotARegularFile (issue 25, case 1): --out
// writes a FIFO in place (its reader gets the export and the FIFO stays),
// writes through a symlink to its target (the link stays, the target keeps
// its mode), creates a dangling link's target, and refuses a socket with one
// line, leaving it a socket. Devices take the FIFO's path (not regular,
// written in place); no test touches the machine's /dev.
func TestOutNeverReplacesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "v.ntr")
	writeRun(t, run, 20, false)
	t.Run("fifo", func(t *testing.T) { outIntoFIFO(t, dir, run) })
	t.Run("symlink", func(t *testing.T) { outThroughSymlink(t, dir, run) })
	t.Run("link to stdout", func(t *testing.T) { outThroughLinkToStdout(t, dir, run) })
	t.Run("socket", func(t *testing.T) { outRefusesSocket(t, dir, run) })
}

// outIntoFIFO: export and report write a FIFO in place; its reader gets
// the product and the FIFO stays.
func outIntoFIFO(t *testing.T, dir, run string) {
	for _, cmd := range []string{"export", "report"} {
		pipe := fifo(t, filepath.Join(dir, cmd+".fifo"))
		got := make(chan string, 1)
		go func() {
			f, err := os.Open(pipe) // blocks until normtop opens it for writing
			if err != nil {
				got <- err.Error()
				return
			}
			b, _ := io.ReadAll(f)
			f.Close()
			got <- string(b)
		}()
		res := normtop(t, dir, cmd, run, "--format", "md", "--out", pipe)
		if res.code != 0 {
			t.Fatalf("%s --out FIFO: exit %d, %s", cmd, res.code, res.stderr)
		}
		select {
		case text := <-got:
			if !strings.Contains(text, "layernorm") {
				t.Errorf("%s --out FIFO: the reader got %q", cmd, text)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("%s --out FIFO: nothing was written into the FIFO", cmd)
		}
		if fi, err := os.Lstat(pipe); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
			t.Errorf("%s --out FIFO: the FIFO was replaced: %v %v", cmd, fi.Mode(), err)
		}
	}
}

// outThroughSymlink: --out through a symlink writes its target (the link
// stays, the target keeps its mode, no temporary file is left), and through
// a dangling link creates the target.
func outThroughSymlink(t *testing.T, dir, run string) {
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(sub, "target.md")
	if err := os.WriteFile(target, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink("sub/target.md", link); err != nil {
		t.Fatal(err)
	}
	if res := normtop(t, dir, "export", run, "--format", "md", "--out", link); res.code != 0 {
		t.Fatalf("export --out SYMLINK: exit %d, %s", res.code, res.stderr)
	}
	if dest, err := os.Readlink(link); err != nil || dest != "sub/target.md" {
		t.Errorf("the symlink was replaced: %q %v", dest, err)
	}
	if b, err := os.ReadFile(target); err != nil || !strings.Contains(string(b), "layernorm") {
		t.Errorf("the link's target holds %q (%v), want the export", b, err)
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("the target's mode became %v (%v), want -rw-r-----", fi.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(sub, ".target.md.*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}

	dangling := filepath.Join(dir, "dangling.md")
	if err := os.Symlink("sub/new.md", dangling); err != nil {
		t.Fatal(err)
	}
	if res := normtop(t, dir, "report", run, "--format", "md", "--out", dangling); res.code != 0 {
		t.Fatalf("report --out DANGLING: exit %d, %s", res.code, res.stderr)
	}
	if fi, err := os.Lstat(dangling); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the dangling symlink was replaced: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sub, "new.md")); err != nil {
		t.Errorf("the dangling link's target was not created: %v", err)
	}
}

// outThroughLinkToStdout: a link to this process's standard output (what
// /dev/stdout is, here made in the temporary directory) is written in
// place, through the pipe.
func outThroughLinkToStdout(t *testing.T, dir, run string) {
	so := filepath.Join(dir, "stdout-link")
	if err := os.Symlink("/proc/self/fd/1", so); err != nil {
		t.Fatal(err)
	}
	res := normtop(t, dir, "export", run, "--format", "md", "--out", so)
	if res.code != 0 || !strings.Contains(res.stdout, "layernorm") {
		t.Errorf("export --out LINK-TO-/proc/self/fd/1: exit %d, stdout %q, stderr %s", res.code, res.stdout, res.stderr)
	}
	if fi, err := os.Lstat(so); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link to standard output was replaced: %v", err)
	}
}

// outRefusesSocket: --out naming a socket is refused with one line and the
// socket stays.
func outRefusesSocket(t *testing.T, dir, run string) {
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip("unix socket:", err)
	}
	defer ln.Close()
	for _, cmd := range []string{"export", "report"} {
		res := normtop(t, dir, cmd, run, "--format", "md", "--out", sock)
		checkOneLine(t, cmd+" --out SOCKET", res, exitUsage, "--out "+sock, "socket")
		if fi, err := os.Lstat(sock); err != nil || fi.Mode()&fs.ModeSocket == 0 {
			t.Fatalf("%s --out SOCKET: the socket was replaced: %v %v", cmd, fi.Mode(), err)
		}
	}
}

// TestOutputIntoAFullDevice (issue 25, case 9): a command whose product is
// its standard output exits 1 with one line when that output cannot be
// written (stdout is /dev/full, opened here for writing, which is harmless),
// and export's write error exits 1 as report's does, not 3 (data error).
func TestOutputIntoAFullDevice(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("/dev/full:", err)
	}
	defer full.Close()
	dir := t.TempDir()
	run := filepath.Join(dir, "v.ntr")
	writeRun(t, run, 20, false)
	for _, args := range [][]string{
		{"variants"}, {"version"}, {"--help"}, {"replay", "--help"},
		{"train", "--help"}, {"train", "-h"}, {"train", "-help"}, {"export", "-h"}, {"report", "--help"},
		{"replay", run, "--headless"}, {"export", run, "--format", "csv"}, {"report", run},
	} {
		cmd := exec.Command(buildNormtop(t), args...)
		cmd.Dir = dir
		cmd.Stdout = full
		var errb strings.Builder
		cmd.Stderr = &errb
		err := cmd.Run()
		res := result{stderr: errb.String()}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			res.code = ee.ExitCode()
		}
		checkOneLine(t, strings.Join(args, " ")+" > /dev/full", res, exitFailure, "standard output", "no space left")
	}
}

// TestSignalDuringExportLeavesNoTemporaryFile (issue 25, case 10): SIGINT or
// SIGTERM while export --out writes its temporary file removes it and exits
// 128+signal with one line; no --out file appears.
func TestSignalDuringExportLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "big.ntr")
	writeRun(t, run, 20000, false)
	bin := buildNormtop(t) // before the deadline: a cold build alone can take minutes
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT} {
		out := filepath.Join(dir, "big.csv")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, bin, "export", run, "--format", "csv", "--out", out)
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		caught := false
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
			if tmp, _ := filepath.Glob(filepath.Join(dir, ".big.csv.*")); len(tmp) > 0 {
				time.Sleep(5 * time.Millisecond) // let it write a while
				cmd.Process.Signal(sig)
				caught = true
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		err := cmd.Wait()
		cancel()
		if !caught {
			t.Fatalf("%v: the temporary file never appeared (%v, %s)", sig, err, errb.String())
		}
		var ee *exec.ExitError
		if _, statErr := os.Stat(out); statErr == nil {
			t.Errorf("%v: the export finished before the signal (make the run larger)", sig)
			os.Remove(out)
			continue
		}
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
			t.Errorf("%v: %v, want exit %d; stderr %s", sig, err, 128+int(sig), errb.String())
		}
		checkOneLine(t, sig.String(), result{code: 128 + int(sig), stderr: errb.String()}, 128+int(sig), "stopped by", "--out "+out+" was not written")
		if left, _ := filepath.Glob(filepath.Join(dir, ".big.csv.*")); len(left) > 0 {
			t.Errorf("%v: temporary files left: %v", sig, left)
		}
	}
}
