package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSplitVariants(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []string
		wantErr string
	}{
		{"layernorm", []string{"layernorm"}, ""},
		{"layernorm,rmsnorm", []string{"layernorm", "rmsnorm"}, ""},
		{" layernorm , rmsnorm ", []string{"layernorm", "rmsnorm"}, ""},
		{"powernorm:alpha_fwd=0.95,warmup=4000", []string{"powernorm:alpha_fwd=0.95,warmup=4000"}, ""},
		{"layernorm,powernorm:alpha_fwd=0.95,warmup=4000,rmsnorm", []string{"layernorm", "powernorm:alpha_fwd=0.95,warmup=4000", "rmsnorm"}, ""},
		{"adanorm:k=0.1,batchnorm:momentum=0.1", []string{"adanorm:k=0.1", "batchnorm:momentum=0.1"}, ""},
		{"", nil, "empty"},
		{"  ", nil, "empty"},
		{"layernorm,,rmsnorm", nil, "empty entry"},
		{"layernorm,", nil, "empty entry"},
		{"alpha=0.9,layernorm", nil, "before any variant"},
	} {
		got, err := splitVariants(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("splitVariants(%q) = %q, %v; want an error containing %q", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitVariants(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// FuzzVariantsFlag checks the --variants splitter on arbitrary input: it
// never panics, every spec it returns is non-empty and starts with a variant
// (not an option), and joining the specs gives back the input up to spaces
// around the pieces.
func FuzzVariantsFlag(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		specs, err := splitVariants(s)
		if err != nil {
			if specs != nil {
				t.Fatalf("error %v with specs %q", err, specs)
			}
			return
		}
		if len(specs) == 0 {
			t.Fatalf("no specs and no error for %q", s)
		}
		for _, spec := range specs {
			first := strings.Split(spec, ",")[0]
			if first == "" || strings.Contains(first, "=") && !strings.Contains(first, ":") {
				t.Fatalf("spec %q of %q starts with an option", spec, s)
			}
		}
		var pieces []string
		for _, p := range strings.Split(s, ",") {
			pieces = append(pieces, strings.TrimSpace(p))
		}
		if got, want := strings.Join(specs, ","), strings.Join(pieces, ","); got != want {
			t.Fatalf("specs %q join to %q, want %q", specs, got, want)
		}
	})
}

func TestParseArgsInterspersed(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		pos    []string
		follow bool
		from   int
	}{
		{[]string{"run.ntr"}, []string{"run.ntr"}, false, 0},
		{[]string{"--follow", "run.ntr"}, []string{"run.ntr"}, true, 0},
		{[]string{"run.ntr", "--follow", "--from", "5"}, []string{"run.ntr"}, true, 5},
		{[]string{"--from=7", "a", "b"}, []string{"a", "b"}, false, 7},
		{[]string{"--", "--follow"}, []string{"--follow"}, false, 0},
		{[]string{"a", "--", "--from", "3"}, []string{"a", "--from", "3"}, false, 0},
	} {
		fs := newFlagSet("t")
		follow := fs.Bool("follow", false, "")
		from := fs.Int("from", 0, "")
		pos, err := parseArgs(fs, tc.args, "h")
		if err != nil || !reflect.DeepEqual(pos, tc.pos) || *follow != tc.follow || *from != tc.from {
			t.Errorf("parseArgs(%q) = %q, %v (follow %v from %d); want %q (follow %v from %d)",
				tc.args, pos, err, *follow, *from, tc.pos, tc.follow, tc.from)
		}
	}
}

func TestParseArgsErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "unknown flag --nope (see normtop x --help)"},
		{[]string{"--from"}, "flag needs a value: --from (see normtop x --help)"},
		{[]string{"--from", "ten"}, `invalid value "ten" for --from: not a number (see normtop x --help)`},
		{[]string{"--from", "99999999999999999999"}, `for --from: out of range`},
	} {
		fs := newFlagSet("t")
		fs.Int("from", 0, "")
		_, err := parseArgs(fs, tc.args, "normtop x --help")
		if err == nil || !strings.Contains(errorLine(err), tc.want) || exitCode(err) != exitUsage {
			t.Errorf("parseArgs(%q): %v (exit %d); want %q, exit 2", tc.args, err, exitCode(err), tc.want)
		}
	}
	fs := newFlagSet("t")
	if _, err := parseArgs(fs, []string{"-h"}, "h"); !errors.Is(err, errHelp) {
		t.Errorf("-h gave %v, want errHelp", err)
	}
}

// TestErrorLineLongFlag (issue 34, case 7): a 100,000-character --variants
// is not echoed whole, and an ESC in it reaches stderr escaped.
func TestErrorLineLongFlag(t *testing.T) {
	long := strings.Repeat("x", 100000) + "\x1b[2J"
	_, _, err := parseTrain([]string{"--variants", long})
	if err == nil || exitCode(err) != exitUsage {
		t.Fatalf("parseTrain: %v, want a usage error", err)
	}
	line := errorLine(err)
	if len(line) > maxErrorLine+200 || strings.ContainsRune(line, 0x1b) || !strings.Contains(line, "bytes cut") || !strings.Contains(line, "--variants") {
		t.Errorf("errorLine is %d bytes: %.300q", len(line), line)
	}
}

func TestErrorLine(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
		code int
	}{
		{errors.New("plain"), "normtop: plain", exitFailure},
		{dataError(errors.New("a.txt: not UTF-8 at byte 3\n")), "normtop: a.txt: not UTF-8 at byte 3", exitData},
		{usageErrorf("normtop train --help", "bad\nthing"), "normtop: bad; thing (see normtop train --help)", exitUsage},
		{&cliError{code: exitDiverged, err: errors.New("every variant diverged")}, "normtop: every variant diverged", exitDiverged},
		{errors.New("unknown variant \x1b]0;pwned\x07x\u009b2J"), `normtop: unknown variant \x1b]0;pwned\x07x\u009b2J`, exitFailure},
	} {
		if got := errorLine(tc.err); got != tc.want {
			t.Errorf("errorLine = %q, want %q", got, tc.want)
		}
		if got := exitCode(tc.err); got != tc.code {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.code)
		}
	}
	if exitCode(nil) != exitOK {
		t.Error("exitCode(nil) != 0")
	}
}

func TestTidyFlagError(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	fs.Float64("lr", 0, "")
	err := fs.Parse([]string{"-lr", "fast"})
	if got := tidyFlagError(err.Error()); got != `invalid value "fast" for --lr: not a number` {
		t.Errorf("tidyFlagError = %q", got)
	}
}

func TestDefaultRunPathAvoidsTakenNames(t *testing.T) {
	t.Chdir(t.TempDir())
	now := time.Date(2026, 11, 22, 3, 4, 5, 0, time.UTC)
	first := defaultRunPath(now, "mlp")
	if first != filepath.Join("runs", "20261122-030405-mlp.ntr") {
		t.Fatalf("first path %q", first)
	}
	os.MkdirAll("runs", 0o755)
	os.WriteFile(first, nil, 0o644)
	if second := defaultRunPath(now, "mlp"); second != filepath.Join("runs", "20261122-030405-mlp-2.ntr") {
		t.Fatalf("second path %q", second)
	}
}

func TestLinkLatest(t *testing.T) {
	t.Chdir(t.TempDir())
	os.MkdirAll("runs", 0o755)
	for _, name := range []string{"a.ntr", "b.ntr"} {
		path := filepath.Join("runs", name)
		os.WriteFile(path, []byte(name), 0o644)
		if err := linkLatest(path); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("runs", "latest"))
		if err != nil || string(got) != name {
			t.Fatalf("runs/latest reads %q, %v; want %q", got, err, name)
		}
	}
	// A run file elsewhere leaves runs/latest alone.
	os.WriteFile("c.ntr", nil, 0o644)
	if err := linkLatest("c.ntr"); err != nil {
		t.Fatal(err)
	}
	if target, _ := os.Readlink(filepath.Join("runs", "latest")); target != "b.ntr" {
		t.Errorf("runs/latest → %q after a run outside runs/, want b.ntr", target)
	}
	if left, _ := filepath.Glob("runs/.latest-*"); len(left) > 0 {
		t.Errorf("temporary links left behind: %v", left)
	}
	// issue 25 case 11: a runs/latest that is the user's regular file is
	// not replaced; the caller warns.
	os.Remove(filepath.Join("runs", "latest"))
	os.WriteFile(filepath.Join("runs", "latest"), []byte("my notes"), 0o644)
	if err := linkLatest(filepath.Join("runs", "a.ntr")); err == nil || !strings.Contains(err.Error(), "not a symlink") {
		t.Errorf("linkLatest over a regular file: %v, want an error saying it is not a symlink", err)
	}
	if got, _ := os.ReadFile(filepath.Join("runs", "latest")); string(got) != "my notes" {
		t.Errorf("the regular file runs/latest was replaced: %q", got)
	}
}

// TestBatchOrMaxTokens: the word preset batches by a token budget; --batch
// alone switches to fixed sentence counts; --max-tokens alone sets the
// budget.
func TestBatchOrMaxTokens(t *testing.T) {
	for _, c := range []struct {
		args             []string
		batch, maxTokens int
	}{
		{nil, 32, 1024},
		{[]string{"--batch", "16"}, 16, 0},
		{[]string{"--max-tokens", "2048"}, 32, 2048},
		{[]string{"--batch", "16", "--max-tokens", "0"}, 16, 0},
	} {
		o, _, err := parseTrain(c.args)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if o.cfg.Batch != c.batch || o.cfg.MaxTokens != c.maxTokens {
			t.Errorf("%q: batch %d, max-tokens %d; want %d, %d", c.args, o.cfg.Batch, o.cfg.MaxTokens, c.batch, c.maxTokens)
		}
	}
}
