package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/normtop/normtop/record"
)

// tinyTransformer are flags for a transformer small enough to train many
// steps a second on a loaded 2-core machine.
var tinyTransformer = []string{"--model", "transformer", "--data", "text", "--layers", "1", "--d-model", "16", "--heads", "2",
	"--seq-len", "16", "--batch", "4", "--eval-every", "25", "--eval-size", "4", "--variants", "layernorm,rmsnorm"}

func TestDataErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	idxNames := []string{"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}
	for _, n := range idxNames {
		write(filepath.Join("empty-idx", n), nil)
		write(filepath.Join("not-idx", n), []byte(strings.Repeat("<html>not an IDX file</html>\n", 40)))
	}
	os.MkdirAll(filepath.Join(dir, "no-idx"), 0o755)
	notUTF8 := write("latin1.txt", append([]byte(strings.Repeat("plain ascii text ", 200)), 0xff, 0xfe, 'x'))
	empty := write("empty.txt", nil)
	short := write("short.txt", []byte("too short"))
	mlp := []string{"train", "--model", "mlp", "--steps", "5", "--headless"}
	tr := append([]string{"train", "--steps", "5", "--headless"}, tinyTransformer...)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing IDX dir", append(mlp, "--data", filepath.Join(dir, "nowhere")), []string{"nowhere"}},
		{"dir without IDX files", append(mlp, "--data", filepath.Join(dir, "no-idx")), []string{"no-idx"}},
		{"empty IDX files", append(mlp, "--data", filepath.Join(dir, "empty-idx")), []string{"empty-idx"}},
		{"non-IDX files", append(mlp, "--data", filepath.Join(dir, "not-idx")), []string{"not-idx", "magic"}},
		{"missing text", append(tr, "--data", filepath.Join(dir, "nowhere.txt")), []string{"nowhere.txt"}},
		{"text not UTF-8", append(tr, "--data", notUTF8), []string{"latin1.txt", "UTF-8"}},
		{"empty text", append(tr, "--data", empty), []string{"empty.txt"}},
		{"text too short", append(tr, "--data", short), []string{"short.txt"}},
		{"text path is a directory", append(tr, "--data", dir), []string{dir}},
		{"text is a pipe, too short", append(tr, "--data", pipeOf(t, dir, "short-pipe", []byte("too short"), false)), []string{"short-pipe", "too short"}},
	} {
		res := normtop(t, dir, tc.args...)
		checkOneLine(t, tc.name, res, exitData, tc.want...)
		if runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*.ntr")); len(runs) > 0 {
			t.Errorf("%s: a run file was created for a run that never started: %v", tc.name, runs)
		}
	}
	// A pipe, like a character device, has no size to check up front: the
	// read itself stops one byte over the limit. Reading 256 MiB through the
	// race detector's instrumentation takes a minute and 3 GB, so these two
	// run without it (`go test ./cmd/normtop/`, CI's plain stage; datasets'
	// TestLoadTextCharDevice checks the same bound on /dev/zero).
	if !raceOn {
		for _, prefix := range []string{"", "words:"} { // a pipe each: its writer stops when read
			arg := prefix + pipeOf(t, dir, "endless-"+strings.TrimSuffix(prefix, ":"), make([]byte, 1<<20), true)
			res := normtop(t, dir, append(tr, "--data", arg)...)
			checkOneLine(t, "an endless pipe as "+arg, res, exitData, "endless", "over 256 MiB")
		}
	}
	if os.Geteuid() != 0 { // root reads files whatever their mode
		locked := write("locked.txt", []byte(strings.Repeat("some text ", 500)))
		os.Chmod(locked, 0)
		res := normtop(t, dir, append(tr, "--data", locked)...)
		checkOneLine(t, "unreadable text", res, exitData, "locked.txt")
	}
}

// pipeOf makes a named pipe in dir whose writer sends chunk once, or over
// and over until the reader closes it when repeat is set.
func pipeOf(t *testing.T, dir, name string, chunk []byte, repeat bool) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	// A reader opened and closed at the end releases a writer that still
	// waits for one (the child refused the path) or writes into a full pipe.
	t.Cleanup(func() {
		if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			r.Close()
		}
	})
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		for {
			if _, err := w.Write(chunk); err != nil || !repeat {
				return
			}
		}
	}()
	return path
}

func TestRunFileCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "taken.ntr"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "plainfile"), []byte("x"), 0o644)
	base := append([]string{"train", "--steps", "2"}, tinyTransformer...)
	res := normtop(t, dir, append(base, "--record", "taken.ntr")...)
	checkOneLine(t, "--record of an existing file", res, exitUsage, "taken.ntr", "exists")
	if b, _ := os.ReadFile(filepath.Join(dir, "taken.ntr")); string(b) != "x" {
		t.Errorf("an existing file was overwritten: %q", b)
	}
	// A path under a plain file cannot be created: an "other failure".
	res = normtop(t, dir, append(base, "--record", "plainfile/run.ntr")...)
	checkOneLine(t, "--record under a plain file", res, exitFailure, "plainfile/run.ntr")
}

// TestVariantMisfitIsUsageError: a variant that parses but cannot sit at
// the model's sites is one line and exit 2, and no run file.
func TestVariantMisfitIsUsageError(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"train", "--steps", "2", "--headless"}, tinyTransformer...)
	res := normtop(t, dir, append(args, "--variants", "layernorm,groupnorm:groups=3")...)
	checkOneLine(t, "groupnorm:groups=3 at d=16", res, exitUsage, "groupnorm:groups=3", "block0.ln1", "groups=3 does not divide d=16", "normtop variants")
	if runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*.ntr")); len(runs) > 0 {
		t.Errorf("a run file was created for a run that never started: %v", runs)
	}
}

func TestShortRunRecordsAndLinksLatest(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"train", "--steps", "30", "--log-every", "10"}, tinyTransformer...)
	res := normtop(t, dir, args...)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if n := strings.Count(res.stdout, "\nstep "); n != 3 {
		t.Errorf("%d step lines for 30 steps at --log-every 10, want 3:\n%s", n, res.stdout)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*-transformer.ntr"))
	if len(runs) != 1 {
		t.Fatalf("run files %v, want one", runs)
	}
	name := filepath.Base(runs[0])
	if !strings.Contains(res.stderr, "recording to runs/"+name) || !strings.Contains(res.stderr, "run completed; run file runs/"+name) {
		t.Errorf("stderr does not name the run file at start and end:\n%s", res.stderr)
	}
	if target, err := os.Readlink(filepath.Join(dir, "runs", "latest")); err != nil || target != name {
		t.Errorf("runs/latest → %q, %v; want %q", target, err, name)
	}
	rep := normtop(t, dir, "replay", "runs/latest", "--log-every", "10")
	if rep.code != 0 || rep.stdout != res.stdout {
		// The lines carry wall-clock rates, so they match only because
		// replay prints what was recorded.
		t.Errorf("replay of runs/latest differs from the live lines (exit %d, %s)\nlive:\n%s\nreplay:\n%s", rep.code, rep.stderr, res.stdout, rep.stdout)
	}
}

// Flags without a command mean train; --log-format json gives JSON Lines.
func TestFlagsAloneMeanTrainAndJSONLines(t *testing.T) {
	dir := t.TempDir()
	res := normtop(t, dir, append([]string{"--steps", "4", "--log-every", "2", "--log-format", "json", "--record", "j.ntr"}, tinyTransformer...)...)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], `{"type":"start"`) || !strings.HasPrefix(lines[1], `{"type":"step","step":2,`) ||
		!strings.HasPrefix(lines[3], `{"type":"end"`) {
		t.Errorf("JSON Lines:\n%s", res.stdout)
	}
}

func TestEveryVariantDiverged(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"train", "--steps", "60", "--lr", "1e30", "--warmup", "0", "--clip", "0", "--record", "div.ntr"}, tinyTransformer...)
	res := normtop(t, dir, args...)
	if res.code != exitDiverged {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.code, exitDiverged, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stderr, "every variant diverged") || strings.Contains(res.stderr, "goroutine") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	r, err := record.Open(filepath.Join(dir, "div.ntr"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		if _, err := r.Next(); err != nil {
			break
		}
	}
	if end, ok := r.End(); !ok || end.Status != record.StatusDiverged || len(end.Diverged) != 2 {
		t.Errorf("end record %+v, %v; want status diverged for both variants", end, ok)
	}
}

// liveRun is a headless training run started in the background, its
// stdout read line by line.
type liveRun struct {
	t      *testing.T
	cmd    *exec.Cmd
	lines  chan string
	stderr bytes.Buffer
}

// startRun starts a long tiny-transformer run recording to record.
func startRun(t *testing.T, dir, record string) *liveRun {
	t.Helper()
	return startNormtop(t, dir, append([]string{"train", "--steps", "1000000", "--log-every", "5", "--record", record}, tinyTransformer...)...)
}

func startNormtop(t *testing.T, dir string, args ...string) *liveRun {
	t.Helper()
	r := &liveRun{t: t, cmd: exec.Command(buildNormtop(t), args...), lines: make(chan string, 1000)}
	r.cmd.Dir = dir
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stderr = &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	return r
}

// waitSteps waits for n more step lines.
func (r *liveRun) waitSteps(n int, what string) {
	r.t.Helper()
	deadline := time.After(90 * time.Second)
	for got := 0; got < n; {
		select {
		case l, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("%s: stdout closed (process ended?)\nstderr: %s", what, r.stderr.String())
			}
			if strings.HasPrefix(l, "step ") {
				got++
			}
		case <-deadline:
			r.t.Fatalf("%s: no progress\nstderr: %s", what, r.stderr.String())
		}
	}
}

// waitHeader waits for the headless log's header ("# normtop run ...").
func (r *liveRun) waitHeader(what string) {
	r.t.Helper()
	deadline := time.After(90 * time.Second)
	for {
		select {
		case l, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("%s: stdout closed (process ended?)\nstderr: %s", what, r.stderr.String())
			}
			if strings.HasPrefix(l, "# normtop run ") {
				return
			}
		case <-deadline:
			r.t.Fatalf("%s: no header\nstderr: %s", what, r.stderr.String())
		}
	}
}

// stop sends sig and checks the exit code 128+sig, the stderr lines and a
// complete run file whose end record says "interrupted". It returns the
// number of frames recorded.
func (r *liveRun) stop(sig syscall.Signal, path string) int {
	t := r.t
	t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	for range r.lines { // drain until the process closes stdout
	}
	err := r.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
		t.Fatalf("after %v: %v, want exit %d\nstderr: %s", sig, err, 128+int(sig), r.stderr.String())
	}
	if errText := r.stderr.String(); !strings.Contains(errText, "run interrupted; run file ") || !strings.HasSuffix(strings.TrimSpace(errText), filepath.Base(path)) ||
		strings.Contains(errText, "goroutine") {
		t.Errorf("stderr:\n%s", r.stderr.String())
	}
	rd, err := record.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	frames := 0
	for {
		_, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		frames++
	}
	end, ok := rd.End()
	if !ok || end.Status != record.StatusInterrupted {
		t.Errorf("end record %+v, %v; want status interrupted", end, ok)
	}
	if d := rd.Damage(); len(d) > 0 || rd.State() != record.Complete {
		t.Errorf("run file damage %v, state %v", d, rd.State())
	}
	return frames
}

// SIGHUP (an SSH disconnect) must not stop a headless run; SIGTERM stops it
// cleanly with a complete run file whose end record says "interrupted".
func TestSignals(t *testing.T) {
	dir := t.TempDir()
	r := startRun(t, dir, "sig.ntr")
	r.waitSteps(1, "before SIGHUP")
	if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	r.waitSteps(3, "after SIGHUP") // still training
	if frames := r.stop(syscall.SIGTERM, filepath.Join(dir, "sig.ntr")); frames < 2*20 {
		t.Errorf("%d frames recorded, want at least 40 (20 steps × 2 variants were logged)", frames)
	}
}

func TestSIGINTStopsCleanly(t *testing.T) {
	dir := t.TempDir()
	r := startRun(t, dir, "int.ntr")
	r.waitSteps(1, "before SIGINT")
	r.stop(syscall.SIGINT, filepath.Join(dir, "int.ntr"))
}

// TestSIGQUITStopsCleanly (issue 34, case 6): SIGQUIT (Ctrl-\) stops a run
// as SIGTERM does: exit 131, a complete run file, no goroutine dump.
func TestSIGQUITStopsCleanly(t *testing.T) {
	if os.Getenv("GOTRACEBACK") != "" {
		t.Skip("GOTRACEBACK is set: SIGQUIT keeps Go's dump")
	}
	dir := t.TempDir()
	r := startRun(t, dir, "quit.ntr")
	r.waitSteps(1, "before SIGQUIT")
	r.stop(syscall.SIGQUIT, filepath.Join(dir, "quit.ntr"))
}

// The README's run command: no arguments, stdout not a terminal, so the
// default run goes headless and is recorded under runs/.
func TestNoArgumentsTrainsHeadlessWhenPiped(t *testing.T) {
	dir := t.TempDir()
	r := startNormtop(t, dir)
	// The headless log's header comes once the default corpus is loaded,
	// the run file created and the models built: this is the default run,
	// headless and recorded. Steps are other tests' business (the first
	// logged one is the tenth, tens of seconds away under -race).
	r.waitHeader("the default run")
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*-transformer.ntr"))
	if len(runs) != 1 {
		t.Fatalf("run files %v, want one runs/*-transformer.ntr", runs)
	}
	r.stop(syscall.SIGTERM, runs[0])
}
