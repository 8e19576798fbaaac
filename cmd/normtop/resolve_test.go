package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolveRunPath: runs/latest is followed once, to the file it names
// then; a later run re-pointing the link does not move a replay already
// pinned. Plain paths and dangling links are left as they are.
func TestResolveRunPath(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.ntr"), filepath.Join(dir, "b.ntr")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	latest := filepath.Join(dir, "latest")
	if err := os.Symlink("a.ntr", latest); err != nil {
		t.Fatal(err)
	}
	pinned := resolveRunPath(latest)
	if pinned != a {
		t.Fatalf("latest resolved to %q, want %q", pinned, a)
	}
	os.Remove(latest)
	if err := os.Symlink("b.ntr", latest); err != nil {
		t.Fatal(err)
	}
	if pinned != a || resolveRunPath(latest) != b {
		t.Fatalf("after re-pointing: pinned %q, latest now %q", pinned, resolveRunPath(latest))
	}
	if got := resolveRunPath(a); got != a {
		t.Errorf("plain path changed to %q", got)
	}
	dangling := filepath.Join(dir, "gone")
	os.Symlink("nothing.ntr", dangling)
	if got := resolveRunPath(dangling); got != dangling {
		t.Errorf("dangling link changed to %q", got)
	}
}
