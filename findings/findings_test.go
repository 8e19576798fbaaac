package findings

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tinyPlan is a plan shaped like Plan (a run shared by two claims, a claim
// reading two runs) with runs the fake trainer makes in milliseconds.
func tinyPlan() []Claim {
	tf := Run{Name: "tf", Args: []string{"--variants", "batchnorm,pn-v,layernorm", "--seeds", "1,2,3", "--steps", "40"}}
	cnn := Run{Name: "cnn", Args: []string{"--model", "resnet", "--variants", "batchnorm", "--seeds", "1,2,3", "--steps", "40"}}
	return []Claim{
		{ID: "ii", Runs: []Run{tf, cnn}, Reads: []string{"tf", "cnn"}},
		{ID: "iii", Runs: []Run{tf}, Reads: []string{"tf"}},
	}
}

func TestSelect(t *testing.T) {
	got, err := Select(Plan, "iii, ii")
	if err != nil || len(got) != 2 || got[0].ID != "ii" || got[1].ID != "iii" {
		t.Errorf("Select(iii, ii) = %v, %v; want ii, iii in plan order", IDs(got), err)
	}
	if all, err := Select(Plan, ""); err != nil || len(all) != len(Plan) {
		t.Errorf("Select(\"\") = %d claims, %v", len(all), err)
	}
	_, err = Select(Plan, "ii,viii")
	if err == nil || !strings.Contains(err.Error(), `unknown claim "viii"`) || !strings.Contains(err.Error(), "i, ii, iii, iv, v, vi, vii") {
		t.Errorf("unknown claim: %v (want it named, and the valid ones listed)", err)
	}
}

// TestPlan: every claim's runs exist once with one argument list, every
// claim reads ≥ 3 seeds (docs/findings.md; across one run's --seeds or several
// runs), and the plan fits its budget of 60 CPU-minutes on 2 cores.
func TestPlan(t *testing.T) {
	runs, err := RunsOf(Plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Plan {
		seeds := map[string]bool{}
		for _, r := range c.Runs {
			if slices.Contains(c.Reads, r.Name) {
				for _, s := range strings.Split(arg(r.Args, "--seeds", ""), ",") {
					seeds[s] = true
				}
			}
		}
		if len(seeds) < 3 {
			t.Errorf("claim %s reads seeds %v: docs/findings.md needs ≥ 3", c.ID, seeds)
		}
	}
	total := 0.0
	for _, r := range runs {
		if r.CPUMin <= 0 {
			t.Errorf("run %s has no planned cost", r.Name)
		}
		total += r.CPUMin
	}
	if total > 60 {
		t.Errorf("the plan costs %g CPU-minutes, over the budget of 60", total)
	}
	bad := []Claim{{ID: "x", Runs: []Run{{Name: "a", Args: []string{"1"}}}, Reads: []string{"b"}}}
	if _, err := RunsOf(bad); err == nil {
		t.Error("a claim reading a run it does not list is not refused")
	}
	twice := []Claim{{ID: "x", Runs: []Run{{Name: "a", Args: []string{"1"}}}}, {ID: "y", Runs: []Run{{Name: "a", Args: []string{"2"}}}}}
	if _, err := RunsOf(twice); err == nil {
		t.Error("one run name with two argument lists is not refused")
	}
}

// TestInterruptedThenResumed: stopped (Ctrl-C) during its second run,
// findings returns an Interrupted error naming the run; started again, it
// does not train the complete run again, keeps the interrupted file aside
// (nothing recorded is lost), trains that run from scratch and writes the
// reports.
func TestInterruptedThenResumed(t *testing.T) {
	dir := t.TempDir()
	plan := tinyPlan()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ft := &fakeTrainer{cancel: cancel, cancelAt: 15}
	ft.calls = map[string]int{}
	var log bytes.Buffer
	// The first run completes: cancelAt applies from the second call on.
	first := plan[0].Runs[0].Path(dir)
	trainer := func(c context.Context, args []string, path string, p func(Progress)) error {
		if path == first {
			saved := ft.cancelAt
			ft.cancelAt = 0
			defer func() { ft.cancelAt = saved }()
		}
		return ft.train(c, args, path, p)
	}
	err := Execute(ctx, Options{Dir: dir, Claims: plan, Train: trainer, Log: &log, Every: time.Nanosecond})
	var in *Interrupted
	if !errors.As(err, &in) || in.Run != "cnn" || !errors.Is(err, context.Canceled) || in.Progress.Step != 14 {
		t.Fatalf("err = %v, want Interrupted in run cnn at step 14\n%s", err, log.String())
	}
	second := plan[0].Runs[1].Path(dir)
	if !in.Recorded || !strings.Contains(err.Error(), "is kept (it says interrupted)") {
		t.Errorf("the error does not say the run file is kept: %v", err)
	}
	partial, err := os.ReadFile(second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "findings: [2/2] cnn: step 14/40") || !strings.Contains(log.String(), "ETA") {
		t.Errorf("no progress line with step and ETA:\n%s", log.String())
	}

	log.Reset()
	ft.cancelAt = 0
	if err := Execute(context.Background(), Options{Dir: dir, Claims: plan, Train: trainer, Log: &log}); err != nil {
		t.Fatalf("second run: %v\n%s", err, log.String())
	}
	if ft.calls[first] != 1 || ft.calls[second] != 2 {
		t.Errorf("trainings per run file: %v; want the complete one once, the interrupted one twice", ft.calls)
	}
	aside := strings.TrimSuffix(second, ".ntr") + ".interrupted-1.ntr"
	if kept, err := os.ReadFile(aside); err != nil || !bytes.Equal(kept, partial) {
		t.Errorf("the interrupted run file was not kept as %s (%v)", aside, err)
	}
	if !strings.Contains(log.String(), "complete") || !strings.Contains(log.String(), "kept as "+aside) {
		t.Errorf("log does not say what was skipped and kept:\n%s", log.String())
	}
	for _, name := range []string{"findings.txt", "findings.md", "findings.json", "report-ii.md", "report-iii.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("report %s: %v", name, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "findings.md"))
	if !strings.Contains(string(md), "**(ii)**") || !strings.Contains(string(md), "**(iii)**") {
		t.Errorf("findings.md lacks a claim:\n%s", md)
	}
	// A third time: nothing to train, the reports are written again.
	if err := Execute(context.Background(), Options{Dir: dir, Claims: plan, Train: trainer, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if ft.calls[first] != 1 || ft.calls[second] != 2 || len(ft.calls) != 2 {
		t.Errorf("a complete run trained again: %v", ft.calls)
	}
}

// TestStoppedBeforeRecording: stopped before the trainer created its run
// file (while loading data), the error says nothing was recorded.
func TestStoppedBeforeRecording(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	trainer := func(c context.Context, args []string, path string, p func(Progress)) error {
		cancel()
		return c.Err()
	}
	err := Execute(ctx, Options{Dir: t.TempDir(), Claims: tinyPlan()[1:], Train: trainer, Log: &bytes.Buffer{}})
	var in *Interrupted
	if !errors.As(err, &in) || in.Recorded || !strings.Contains(err.Error(), "before run tf had recorded anything") {
		t.Errorf("err = %v", err)
	}
}

// TestReportsNeverReplaceOtherFiles: an --out directory holding a
// findings.md that normtop did not write is refused, the file untouched.
func TestReportsNeverReplaceOtherFiles(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "findings.md")
	if err := os.WriteFile(mine, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ft := &fakeTrainer{}
	err := Execute(context.Background(), Options{Dir: dir, Claims: tinyPlan()[1:], Train: ft.train, Log: &bytes.Buffer{}})
	if err == nil || !strings.Contains(err.Error(), "findings.md exists and is not a normtop report") {
		t.Errorf("err = %v", err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "my notes\n" {
		t.Errorf("findings.md replaced: %q", b)
	}
}

// TestDamagedRunFileKeptAside: a run file that is not one (a crash, a
// stray file) is kept aside, never removed, and its run trained again.
func TestDamagedRunFileKeptAside(t *testing.T) {
	dir := t.TempDir()
	plan := tinyPlan()[1:]
	path := plan[0].Runs[0].Path(dir)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	ft := &fakeTrainer{}
	if err := Execute(context.Background(), Options{Dir: dir, Claims: plan, Train: ft.train, Log: &bytes.Buffer{}}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(strings.TrimSuffix(path, ".ntr") + ".interrupted-1.ntr"); err != nil || string(b) != "garbage" {
		t.Errorf("damaged file not kept aside: %q, %v", b, err)
	}
}
