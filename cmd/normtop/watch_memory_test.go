package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// TestWatcherMemory measures a watcher's peak resident memory on a
// 100,000-step mlp run (scripts/watch-memory.sh runs it; NORMTOP_MEMCHECK=1,
// it takes minutes): replay --headless of the closed file, the dashboard's
// replay of it (--from the last step: every step read into its charts), and
// replay --follow --headless of the file while a writer appends it. The
// run's frames are a real 30-step mlp run's, repeated with the step
// renumbered, so their shape (variants, layers, probes, evaluations every
// 200 steps) is the trainer's. The figures are logged; the test fails over
// NORMTOP_MEMCHECK_MB (150 by default).
func TestWatcherMemory(t *testing.T) {
	if os.Getenv("NORMTOP_MEMCHECK") == "" {
		t.Skip("NORMTOP_MEMCHECK=1 runs it (scripts/watch-memory.sh)")
	}
	limit := 150
	if v, err := strconv.Atoi(os.Getenv("NORMTOP_MEMCHECK_MB")); err == nil {
		limit = v
	}
	steps := 100000
	if v, err := strconv.Atoi(os.Getenv("NORMTOP_MEMCHECK_STEPS")); err == nil {
		steps = v
	}
	bin := buildNormtop(t)
	dir := os.Getenv("NORMTOP_MEMCHECK_DIR") // kept, to look at the files afterwards
	if dir == "" {
		dir = t.TempDir()
	}
	seed := filepath.Join(dir, "seed.ntr")
	os.Remove(seed)
	os.Remove(filepath.Join(dir, "big.ntr"))
	os.Remove(filepath.Join(dir, "live.ntr"))
	if res := normtop(t, dir, "train", "--model", "mlp", "--steps", "30", "--eval-every", "10", "--headless", "--record", seed); res.code != 0 {
		t.Fatalf("seed run: %d %s", res.code, res.stderr)
	}
	meta, frames := readSeed(t, seed)
	run := filepath.Join(dir, "big.ntr")
	writeRepeated(t, run, meta, frames, steps, 0)
	fi, _ := os.Stat(run)
	t.Logf("run file: %d steps × %d variants, %d layers, %.1f MB", steps, len(meta.Variants), len(meta.Layers), float64(fi.Size())/1e6)

	report := func(what string, kb int64) {
		t.Logf("%-40s peak RSS %6.1f MB", what, float64(kb)/1024)
		if kb/1024 > int64(limit) {
			t.Errorf("%s: peak RSS %d MB, over %d MB", what, kb/1024, limit)
		}
	}

	cmd := exec.Command(bin, "replay", run, "--headless")
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	report("replay --headless (closed file)", maxRSS(cmd))

	report("replay (dashboard, --from the end)", dashboardPeak(t, bin, run, steps))

	live := filepath.Join(dir, "live.ntr")
	done := make(chan struct{})
	go func() {
		defer close(done)
		writeRepeated(t, live, meta, frames, steps, 20*time.Microsecond)
	}()
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(live); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd = exec.Command(bin, "replay", live, "--follow", "--headless")
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	<-done
	report("replay --follow --headless (live file)", maxRSS(cmd))
}

func maxRSS(cmd *exec.Cmd) int64 {
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss // KiB on Linux
	}
	return 0
}

func readSeed(t *testing.T, path string) (probes.RunMeta, []probes.Frame) {
	r, err := record.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var fs []probes.Frame
	for {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return r.Meta(), fs
}

// writeRepeated writes steps steps of the seed's frames, renumbered
// (status Running but for the last step), pausing pause between steps.
func writeRepeated(t *testing.T, path string, meta probes.RunMeta, seed []probes.Frame, steps int, pause time.Duration) {
	w, err := record.Create(path, meta)
	if err != nil {
		t.Error(err)
		return
	}
	per := len(meta.Variants)
	n := len(seed) / per
	for s := 1; s <= steps; s++ {
		for v := 0; v < per; v++ {
			f := seed[((s-1)%n)*per+v]
			f.Step, f.Status = s, probes.Running
			if s == steps {
				f.Status = probes.Done
			}
			if s%200 != 0 {
				f.Eval = nil
			}
			f.Alerts = nil
			if err := w.Write(f); err != nil {
				t.Error(err)
				return
			}
		}
		if pause > 0 && s%100 == 0 {
			time.Sleep(100 * pause)
		}
	}
	if err := w.Close(record.End{}); err != nil {
		t.Error(err)
	}
}

// dashboardPeak runs the dashboard's replay in a pseudo-terminal (script),
// waits until the process's peak RSS (VmHWM) has not moved for 5 s, quits
// it with q, and returns that peak in KiB.
func dashboardPeak(t *testing.T, bin, run string, steps int) int64 {
	cmd := exec.Command("script", "-qfec", bin+" replay "+run+" --from "+strconv.Itoa(steps), "/dev/null")
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "COLUMNS=160", "LINES=48")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Skip("script:", err)
	}
	var child int
	for i := 0; i < 100 && child == 0; i++ {
		time.Sleep(100 * time.Millisecond)
		child = childOf(cmd.Process.Pid)
	}
	var peak int64
	stable := time.Now()
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		hwm := vmHWM(child)
		if hwm > peak {
			peak, stable = hwm, time.Now()
		}
		if time.Since(stable) > 5*time.Second {
			break
		}
	}
	in.Write([]byte("q"))
	in.Close()
	cmd.Wait()
	return peak
}

func childOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	c, _ := strconv.Atoi(f[0])
	return c
}

func vmHWM(pid int) int64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}
