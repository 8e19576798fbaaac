package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestRunFiles: a directory's run files in name order, links (latest),
// directories and other files left out; a missing directory is an error.
func TestRunFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.ntr", "a.ntr", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "sub.ntr"), 0o755)
	os.Symlink("a.ntr", filepath.Join(dir, "latest"))
	os.Symlink("b.ntr", filepath.Join(dir, "link.ntr"))
	got, err := runFiles(dir)
	want := []string{filepath.Join(dir, "a.ntr"), filepath.Join(dir, "b.ntr")}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("runFiles = %v, %v; want %v", got, err, want)
	}
	if got, err := runFiles(t.TempDir()); err != nil || len(got) != 0 {
		t.Errorf("empty directory: %v, %v", got, err)
	}
	if _, err := runFiles(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing directory is not an error")
	}
}

// TestReplayArgs: no argument is the workspace of ./runs, a directory or
// several files the workspace, one file the replay; --headless takes one
// file only.
func TestReplayArgs(t *testing.T) {
	dir := t.TempDir()
	o, err := parseReplay(nil)
	if err != nil || o.dir != "runs" {
		t.Errorf("no argument: %+v, %v", o, err)
	}
	if o, err = parseReplay([]string{dir}); err != nil || o.dir != dir {
		t.Errorf("a directory: %+v, %v", o, err)
	}
	if o, err = parseReplay([]string{"a.ntr", "b.ntr"}); err != nil || len(o.paths) != 2 {
		t.Errorf("two files: %+v, %v", o, err)
	}
	if o, err = parseReplay([]string{"a.ntr"}); err != nil || o.path != "a.ntr" {
		t.Errorf("one file: %+v, %v", o, err)
	}
	if _, err = parseReplay([]string{"a.ntr", "b.ntr", "--headless"}); err == nil {
		t.Error("--headless with two files is not an error")
	}
	// --headless reads one file: a directory is then the file that cannot
	// be read (a data error naming it, TestBadRunFiles).
	if o, err = parseReplay([]string{dir, "--headless"}); err != nil || o.path != dir {
		t.Errorf("--headless with a directory: %+v, %v", o, err)
	}
}
