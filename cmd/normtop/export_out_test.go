package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
