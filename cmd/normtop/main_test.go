package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// binPath is the normtop binary the tests run the way a user does: this test
// binary itself, linked under the name "normtop" (TestMain runs main when it
// is started by that name). Building normtop apart would compile every
// package a second time (under -race, the race build is not reusable for a
// plain one): about 240 CPU-seconds of a cold `go test -race ./...`. Under
// -race the children run with the race detector too, so the tests that drive
// the binary also check the whole program's goroutines (signals, the
// flusher, the recorder) for data races.
var (
	binPath  string
	binOnce  sync.Once
	binError error
)

// childName is the name under which this test binary is normtop.
const childName = "normtop"

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == childName {
		main()
		return // main exits; not reached
	}
	dir, err := os.MkdirTemp("", "normtop-cmd-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, childName)
	// A race-built program sleeps a second before it exits (the race
	// runtime's atexit_sleep_ms, there so that late reports get written);
	// the tests start several hundred children.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildNormtop links this test binary as normtop (a hard link, or a copy
// where the temporary directory is on another file system) once.
func buildNormtop(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() { binError = linkSelf(binPath) })
	if binError != nil {
		t.Fatal(binError)
	}
	return binPath
}

func linkSelf(to string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the test binary: %v", err)
	}
	if os.Link(self, to) == nil {
		return nil
	}
	in, err := os.Open(self)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

type result struct {
	code           int
	stdout, stderr string
}

// normtop runs the binary in dir with args; stdout is a pipe, so it is
// headless unless told otherwise.
func normtop(t *testing.T, dir string, args ...string) result {
	t.Helper()
	bin := buildNormtop(t) // before the deadline: a cold build alone can take minutes
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	default:
		t.Fatalf("normtop %q: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("normtop %q: timed out\nstderr: %s", args, res.stderr)
	}
	return res
}

// checkOneLine fails unless stderr is exactly one "normtop: ..." line that
// contains every want, with no trace of a panic.
func checkOneLine(t *testing.T, what string, res result, code int, want ...string) {
	t.Helper()
	if res.code != code {
		t.Errorf("%s: exit %d, want %d\nstderr: %s", what, res.code, code, res.stderr)
	}
	lines := strings.Split(strings.TrimRight(res.stderr, "\n"), "\n")
	if len(lines) != 1 || res.stderr == "" {
		t.Errorf("%s: %d stderr lines, want 1:\n%s", what, len(lines), res.stderr)
	}
	if !strings.HasPrefix(res.stderr, "normtop: ") {
		t.Errorf("%s: stderr does not start with \"normtop: \": %q", what, res.stderr)
	}
	for _, bad := range []string{"goroutine", "panic", "runtime/"} {
		if strings.Contains(res.stderr+res.stdout, bad) {
			t.Errorf("%s: output mentions %q:\n%s%s", what, bad, res.stdout, res.stderr)
		}
	}
	for _, w := range want {
		if !strings.Contains(res.stderr, w) {
			t.Errorf("%s: stderr %q does not contain %q", what, res.stderr, w)
		}
	}
}

// TestUsageErrors: each mistake is one line and exit 2. The checks that
// need the data loaded (the layers' widths, the memory estimate, the steps
// per epoch) use a small corpus of the same kind: loading the default word
// corpus costs a second, and under -race (this test binary is the normtop
// it runs) seven.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"trian"}, []string{`unknown command "trian"`, "normtop --help"}},
		{[]string{"train", "--nope"}, []string{"unknown flag --nope", "see normtop train --help"}},
		{[]string{"--nope"}, []string{"unknown flag --nope", "see normtop train --help"}},
		{[]string{"train", "--steps", "many"}, []string{`invalid value "many" for --steps`}},
		{[]string{"train", "--steps"}, []string{"flag needs a value: --steps"}},
		{[]string{"train", "--lr", "-1"}, []string{"lr -1"}},
		{[]string{"train", "--batch", "0"}, []string{"batch 0"}},
		{[]string{"train", "--model", "rnn"}, []string{`model "rnn"`, "mlp, cnn, resnet, transformer, classifier or lstm"}},
		{[]string{"train", "--model", "resnet", "--data", "sotu"}, []string{`data "sotu"`, "model resnet trains on mnist"}},
		{[]string{"train", "--model", "resnet", "--data", "text"}, []string{`data "text"`, "model resnet trains on mnist"}},
		{[]string{"train", "--model", "resnet", "--data", "spam"}, []string{`data "spam"`, "model resnet trains on mnist"}},
		{[]string{"train", "--model", "resnet", "--variants", "batchnorm,layernorm"}, []string{"variant layernorm: not defined on resnet's image sites", "resnet trains none, batchnorm"}},
		{[]string{"train", "--model", "resnet", "--variants", "rmsnorm"}, []string{"variant rmsnorm: not defined on resnet's image sites"}},
		{[]string{"train", "--heads", "3"}, []string{"not divisible"}},
		{[]string{"train", "--model", "lstm", "--seq-len", "0"}, []string{"seq-len 0", "1 to 1024"}},
		{[]string{"train", "--model", "lstm", "--data", "text", "--seq-len", "5000"}, []string{"seq-len 5000", "1 to 1024"}},
		{[]string{"train", "--model", "lstm", "--variants", "none,batchnorm"}, []string{"batchnorm", "per-row variants only"}},
		{[]string{"train", "--variants", "layernorm,fancynorm"}, []string{"fancynorm", "see normtop variants"}},
		{[]string{"train", "--variants", "layernorm:wobble=3"}, []string{"wobble"}},
		{[]string{"train", "--variants", "powernorm:alpha_fwd=2"}, []string{"alpha_fwd"}},
		{[]string{"train", "--variants", "layernorm,layernorm:eps=1e-5"}, []string{"same variant", "give each variant once"}},
		{[]string{"train", "--record", "a\nnormtop: run completed.ntr"}, []string{"--record", "newline"}},
		{[]string{"train", "--variants", ""}, []string{"--variants is empty"}},
		{[]string{"train", "--data", "text", "--variants", "pn-v:groups=5,alpha=0.95"}, []string{"pn-v:groups=5,alpha=0.95", "block0.ln1", "not divisible by groups=5", "see normtop variants"}},
		{[]string{"train", "--variants", "instancenorm"}, []string{"instancenorm", "--max-tokens 1024", "use --batch N"}},
		{[]string{"train", "--max-tokens", "16"}, []string{"max-tokens 16 is below the longest sentence, seq-len 176"}},
		{[]string{"train", "--model", "mlp", "--loss", "sum"}, []string{"--loss sum: model mlp has no tokens"}},
		{[]string{"train", "--model", "resnet", "--loss", "mean"}, []string{"--loss mean: model resnet has no tokens"}},
		{[]string{"train", "--loss", "max"}, []string{`loss "max": want mean`}},
		{[]string{"train", "--model", "cnn", "--label-smoothing", "0.1"}, []string{"label-smoothing 0.1: model cnn has no tokens"}},
		{[]string{"train", "--label-smoothing", "1"}, []string{"label-smoothing 1: want 0 ≤ ε < 1"}},
		{[]string{"train", "--weight-decay", "-1"}, []string{"weight-decay -1"}},
		{[]string{"train", "--tie-break", "random"}, []string{`--tie-break "random": want fixed or seed`}},
		{[]string{"train", "--batch", "16", "--row-multiple", "8"}, []string{"--tie-break and --row-multiple shape token-budget batches"}},
		{[]string{"train", "--model", "mlp", "--max-tokens", "512"}, []string{"model mlp on mnist data has no sentences"}},
		{[]string{"train", "--model", "mlp", "--d-model", "0", "--layers", "1000"}, []string{"--layers: model mlp has no such size", "transformer, classifier, lstm"}},
		{[]string{"train", "--model", "cnn", "--seq-len", "64"}, []string{"--seq-len: model cnn"}},
		{[]string{"train", "--model", "lstm", "--heads", "2"}, []string{"--heads: model lstm", "transformer, classifier"}},
		{[]string{"train", "--data", "text", "--max-tokens", "512"}, []string{"model transformer on text data has no sentences"}},
		{[]string{"train", "--batch", "8", "--max-tokens", "512"}, []string{"--batch 8 and --max-tokens 512: give one of them"}},
		{[]string{"train", "--input", "bert"}, []string{`input "bert"`, "fairseq or learned"}},
		{[]string{"train", "--model", "classifier", "--tie-embeddings"}, []string{"nothing to tie"}},
		{[]string{"train", "--log-format", "xml"}, []string{`"xml"`, "text, json"}},
		{[]string{"train", "--log-layout", "grid"}, []string{`"grid"`, "auto, columns, rows"}},
		{[]string{"replay", "x.ntr", "--log-layout", "grid"}, []string{`"grid"`, "auto, columns, rows"}},
		{[]string{"train", "--probe-every", "-3"}, []string{"--probe-every -3"}},
		{[]string{"train", "extra"}, []string{`got "extra"`}},
		{[]string{"train", "--lr", "inf"}, []string{"lr +Inf", "finite"}},
		{[]string{"train", "--clip", "nan"}, []string{"clip NaN", "finite"}},
		{[]string{"train", "--dropout", "nan"}, []string{"dropout NaN"}},
		{[]string{"train", "--d-model", "100000"}, []string{"d-model 100000", "32768"}},
		{[]string{"train", "--data", "text", "--d-model", "20000"}, []string{"would need at least", "GiB", "--d-model"}},
		{[]string{"train", "--epochs", "5365545613"}, []string{"epochs 5365545613"}},
		{[]string{"train", "--data", "words:" + wordCorpus(t, dir), "--epochs", "999999999"}, []string{"999999999 ×", "steps per epoch"}},
		{[]string{"replay"}, []string{"the workspace (a directory or several run files) needs a terminal"}},
		{[]string{"replay", "a.ntr", "b.ntr"}, []string{"one run file"}},
		{[]string{"replay", "a.ntr", "--speed", "0"}, []string{"--speed 0"}},
		{[]string{"replay", "a.ntr", "--speed", "inf"}, []string{"--speed +Inf"}},
		{[]string{"replay", "a.ntr", "--from", "-1"}, []string{"--from -1"}},
		{[]string{"export", "a.ntr", "--format", "xls"}, []string{`--format "xls"`, "csv, jsonl or md"}},
		{[]string{"export"}, []string{"export needs a run file"}},
		{[]string{"report"}, []string{"report needs one or more run files"}},
		{[]string{"report", "a.ntr", "--format", "pdf"}, []string{`--format "pdf"`, "text, md, json or html"}},
		{[]string{"report", "a.ntr", "--seeds", "1"}, []string{"unknown flag --seeds", "normtop report --help"}},
		{[]string{"variants", "x"}, []string{`got "x"`}},
		{[]string{"version", "--short"}, []string{"unknown flag --short"}},
	} {
		res := normtop(t, dir, tc.args...)
		checkOneLine(t, strings.Join(tc.args, " "), res, exitUsage, tc.want...)
	}
}

func TestHelp(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--help"}, {"help"}, {"-h"}, {"help", "train"}, {"train", "--help"}, {"train", "--model", "mlp", "--help"}, {"train", "--model", "lstm", "--help"},
		{"replay", "--help"}, {"export", "-h"}, {"report", "--help"}, {"help", "report"}, {"variants", "--help"}, {"version", "--help"},
	} {
		res := normtop(t, dir, args...)
		if res.code != 0 || res.stderr != "" || !strings.Contains(res.stdout, "Usage:") || !strings.Contains(res.stdout, "xample") {
			t.Errorf("normtop %q: exit %d, stderr %q, stdout:\n%s", args, res.code, res.stderr, res.stdout)
		}
	}
	res := normtop(t, dir, "train", "--model", "mlp", "--help")
	if !strings.Contains(res.stdout, "--lr float") || !strings.Contains(res.stdout, "(default 0.001)") {
		t.Errorf("train --model mlp --help does not show the MNIST preset's lr:\n%s", res.stdout)
	}
	res = normtop(t, dir, "train", "--model", "resnet", "--help")
	if !strings.Contains(res.stdout, "(default 0.003)") || !strings.Contains(res.stdout, "(default 600)") || !strings.Contains(res.stdout, "none,batchnorm,pn-v,powernorm") {
		t.Errorf("train --model resnet --help does not show the resnet preset (lr 0.003, 600 steps, its variants):\n%s", res.stdout)
	}
	if res := normtop(t, dir, "--help"); !strings.Contains(res.stdout, "4 every variant diverged") {
		t.Errorf("--help does not document the exit codes:\n%s", res.stdout)
	}
}

func TestVersionAndVariants(t *testing.T) {
	dir := t.TempDir()
	res := normtop(t, dir, "version")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "normtop ") || !strings.Contains(res.stdout, "go1.") {
		t.Errorf("version: exit %d, %q", res.code, res.stdout)
	}
	res = normtop(t, dir, "variants")
	if res.code != 0 {
		t.Fatalf("variants: exit %d, %s", res.code, res.stderr)
	}
	for _, name := range []string{"none", "layernorm", "layernorm-simple", "detachnorm", "detach-mean",
		"detach-variance", "adanorm", "rmsnorm", "batchnorm", "pn-v", "powernorm", "alpha_fwd=", "warmup=",
		"groupnorm", "groups=32", "instancenorm"} {
		if !strings.Contains(res.stdout, name) {
			t.Errorf("variants output lacks %q:\n%s", name, res.stdout)
		}
	}
}
