package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/normtop/normtop/record"
)

// TestExportOutNeverOverwritesInput: --out naming the run file itself, a
// symlink to it or a hard link of it is refused before anything is written,
// and the run file is left byte for byte as it was.
func TestExportOutNeverOverwritesInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v.ntr")
	writeRun(t, path, 20, false)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sym := filepath.Join(dir, "latest")
	if err := os.Symlink("v.ntr", sym); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.ntr")
	if err := os.Link(path, hard); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, out string }{
		{path, path}, {"v.ntr", "./v.ntr"}, {path, sym}, {sym, path}, {sym, "latest"}, {path, hard},
	} {
		for _, format := range []string{"md", "csv"} {
			res := normtop(t, dir, "export", tc.in, "--format", format, "--out", tc.out)
			checkOneLine(t, "export "+tc.in+" --out "+tc.out, res, exitUsage, "--out "+tc.out, "run file")
		}
	}
	res := normtop(t, dir, "report", path, "--format", "md", "--out", sym)
	checkOneLine(t, "report --out onto its input", res, exitUsage, "--out "+sym, "run file")
	after, err := os.ReadFile(path)
	if err != nil || string(after) != string(before) {
		t.Fatalf("the run file changed (%d → %d bytes, %v)", len(before), len(after), err)
	}
	if fi, err := os.Lstat(sym); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v %v", fi, err)
	}
}

// TestExportOutModeAndDirectory: an export file gets 0666 less the umask
// (0644 under umask 022), as a shell redirection would, and --out naming a
// directory is one clear line without the temporary file's name.
func TestExportOutModeAndDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v.ntr")
	writeRun(t, path, 20, false)
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	out := filepath.Join(dir, "v.md")
	if res := normtop(t, dir, "export", path, "--format", "md", "--out", out); res.code != 0 {
		t.Fatalf("export: exit %d, %s", res.code, res.stderr)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("export file mode %v (%v), want -rw-r--r--", fi.Mode(), err)
	}
	syscall.Umask(0o077)
	out2 := filepath.Join(dir, "v2.md")
	if res := normtop(t, dir, "export", path, "--format", "md", "--out", out2); res.code != 0 {
		t.Fatalf("export: exit %d, %s", res.code, res.stderr)
	}
	if fi, err := os.Stat(out2); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("export file mode under umask 077: %v (%v), want -rw-------", fi.Mode(), err)
	}
	syscall.Umask(0o022)

	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	res := normtop(t, dir, "export", path, "--format", "csv", "--out", sub)
	checkOneLine(t, "--out DIR", res, exitUsage, "--out "+sub, "is a directory")
	if strings.Contains(res.stderr, "/.sub.") {
		t.Errorf("the error names the temporary file: %s", res.stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("export left temporary files: %v", left)
	}
	// --out in a directory that does not exist: one line, no temporary name.
	res = normtop(t, dir, "export", path, "--format", "csv", "--out", filepath.Join(dir, "nope", "x.csv"))
	checkOneLine(t, "--out in a missing directory", res, exitFailure, "nope/x.csv")
	if strings.Contains(res.stderr, ".x.csv.") {
		t.Errorf("the error names the temporary file: %s", res.stderr)
	}
}

// TestOutRefusesAnotherRecording (issue 34, case 2): export, report and plot
// --out naming another run file, a stream, or a link to one (runs/latest)
// is refused with exit 2 and the recording left as it was; --force
// replaces it; an ordinary file is replaced without --force.
func TestOutRefusesAnotherRecording(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ntr")
	writeRun(t, in, 20, false)
	other := filepath.Join(dir, "other.ntr")
	writeRun(t, other, 5, false)
	stream := filepath.Join(dir, "s.jsonl")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(stream, []byte(`{"normtop_stream":1,"meta":{"variants":[{"name":"a"}],"layers":["l"]}}`+"\n"), 0o644))
	must(os.MkdirAll(filepath.Join(dir, "runs"), 0o755))
	must(os.Symlink("../other.ntr", filepath.Join(dir, "runs", "latest")))
	for _, out := range []string{other, stream, filepath.Join("runs", "latest")} {
		before, err := os.ReadFile(filepath.Join(dir, out))
		if filepath.IsAbs(out) {
			before, err = os.ReadFile(out)
		}
		must(err)
		for _, args := range [][]string{
			{"export", in, "--format", "csv", "--out", out},
			{"report", in, "--format", "md", "--out", out},
			{"plot", in, "--probe", "train_loss", "--out", out},
		} {
			res := normtop(t, dir, args...)
			if args[0] == "plot" {
				// plot wants an .svg name: the recording check must come
				// before the extension check for a link named latest.
				if res.code == 0 {
					t.Errorf("%v: exit 0", args)
				}
				continue
			}
			checkOneLine(t, strings.Join(args, " "), res, exitUsage, "--out "+out, "--force")
		}
		after, err := os.ReadFile(filepath.Join(dir, out))
		if filepath.IsAbs(out) {
			after, err = os.ReadFile(out)
		}
		if err != nil || string(after) != string(before) {
			t.Fatalf("--out %s: the recording changed (%v)", out, err)
		}
	}
	svg := filepath.Join(dir, "fig.svg")
	must(os.WriteFile(svg, []byte("\x89NTRUN\r\n not really"), 0o644))
	res := normtop(t, dir, "plot", in, "--probe", "train_loss", "--out", svg)
	checkOneLine(t, "plot --out a run file named .svg", res, exitUsage, "--out "+svg, "--force")
	if res := normtop(t, dir, "export", in, "--format", "csv", "--out", other, "--force"); res.code != 0 {
		t.Fatalf("export --force: exit %d, %s", res.code, res.stderr)
	}
	plain := filepath.Join(dir, "plain.csv")
	must(os.WriteFile(plain, []byte("old,csv\n"), 0o644))
	if res := normtop(t, dir, "export", in, "--format", "csv", "--out", plain); res.code != 0 {
		t.Fatalf("export over a plain file: exit %d, %s", res.code, res.stderr)
	}
}

// TestEscapesInPathsAreShownEscaped (issue 34, case 3): a run file whose
// name holds terminal escapes is named escaped in the notes and errors on
// stderr and in the report's text.
func TestEscapesInPathsAreShownEscaped(t *testing.T) {
	dir := t.TempDir()
	name := "run\x1b]0;pwned\x07.ntr"
	w := writeRun(t, filepath.Join(dir, name), 20, true)
	defer w.Close(record.End{})
	for _, args := range [][]string{
		{"replay", name, "--headless"},
		{"report", name},
		{"export", name, "--format", "md"},
		{"export", name + ".missing"},
	} {
		res := normtop(t, dir, args...)
		for what, out := range map[string]string{"stderr": res.stderr, "stdout": res.stdout} {
			if strings.ContainsAny(out, "\x1b\x07") {
				t.Errorf("%v: %s holds a raw escape: %q", args[0], what, out)
			}
		}
		if !strings.Contains(res.stderr+res.stdout, `run\x1b]0;pwned\x07`) {
			t.Errorf("%v: the name is not shown escaped: %q", args[0], res.stderr)
		}
	}
}
