package sshserve

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
	"github.com/normtop/normtop/tui"
)

// A stream header (docs/formats.md) naming the other ranks' streams.
func writeStream(t *testing.T, path string, ranks ...string) {
	t.Helper()
	q := make([]string, len(ranks))
	for i, r := range ranks {
		q[i] = `"` + r + `"`
	}
	h := `{"normtop_stream":1,"meta":{"RunID":"s","Model":"m","Variants":[{"Name":"layernorm"}],"Layers":["fc1"]},"streams":[` + strings.Join(q, ",") + "]}\n"
	if err := os.WriteFile(path, []byte(h), 0o644); err != nil {
		t.Fatal(err)
	}
}

// What a folder serves: regular run files and streams directly in it;
// links (to inside or outside), sub-folders, other ranks' streams and
// other files are not listed, and a name that would leave the folder is
// refused when asked for.
func TestListAndContain(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "b.ntr", 3)
	writeRun(t, dir, "a.ntr", 3)
	writeStream(t, filepath.Join(dir, "s.jsonl"))
	writeStream(t, filepath.Join(dir, "s.rank1.jsonl"))
	os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "passwd.ntr"))
	os.Symlink("a.ntr", filepath.Join(dir, "latest.ntr"))
	os.Mkdir(filepath.Join(dir, "sub.ntr"), 0o755)
	syscall.Mkfifo(filepath.Join(dir, "fifo.ntr"), 0o644)
	got, err := ListRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.ntr", "b.ntr", "s.jsonl"}; !slices.Equal(got, want) {
		t.Fatalf("ListRuns = %q, want %q", got, want)
	}
	for _, c := range []struct{ name, err string }{
		{"a.ntr", ""},
		{"../x", "not a file directly in the served folder"},
		{"/etc/passwd", "not a file directly in the served folder"},
		{"sub.ntr/../a.ntr", "not a file directly in the served folder"},
		{"passwd.ntr", "symbolic link"},
		{"latest.ntr", "symbolic link"},
		{"sub.ntr", "not a regular file"},
		{"fifo.ntr", "not a regular file"},
		{"gone.ntr", "no such file"},
	} {
		_, err := contained(dir, c.name)
		if (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("contained(%q) = %v, want %q", c.name, err, c.err)
		}
	}
}

// A stream whose header names a rank's stream that is a link, or in a
// sub-folder, or outside the folder, is refused before record opens
// anything it names.
func TestRankStreamsContained(t *testing.T) {
	dir := t.TempDir()
	os.Symlink("/etc/passwd", filepath.Join(dir, "r.rank1.jsonl"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	writeStream(t, filepath.Join(dir, "link.jsonl"), "r.rank1.jsonl")
	writeStream(t, filepath.Join(dir, "up.jsonl"), "../x")
	writeStream(t, filepath.Join(dir, "sub.jsonl"), "sub/y.jsonl")
	writeStream(t, filepath.Join(dir, "later.jsonl"), "later.rank1.jsonl") // not written yet: fine
	c := newRunCache(context.Background(), dir, nil, time.Second)
	for _, k := range []struct{ name, err string }{
		{"link.jsonl", "symbolic link"},
		{"up.jsonl", "not a file directly in the served folder"},
		{"sub.jsonl", "not a file directly in the served folder"},
		{"later.jsonl", ""},
	} {
		_, _, err := c.Open(k.name)
		if (k.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), k.err) {
			t.Errorf("Open(%q) = %v, want %q", k.name, err, k.err)
		}
	}
}

// Every session reads one cached copy: two opens share an entry, and each
// cursor keeps its own place; Seek follows record.Reader's rule.
func TestCacheSharedCursors(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "a.ntr", 30)
	c := newRunCache(context.Background(), dir, func(name string, r *record.Reader) string { return name + ": whole" }, time.Second)
	s1, _, err := c.Open("a.ntr")
	if err != nil {
		t.Fatal(err)
	}
	s2, _, err := c.Open("a.ntr")
	if err != nil {
		t.Fatal(err)
	}
	if s1.(*cursor).e != s2.(*cursor).e || len(c.entries) != 1 {
		t.Fatal("two opens of one file made two cache entries")
	}
	if c.frameCount() != 60 {
		t.Fatalf("cache holds %d frames, want 60", c.frameCount())
	}
	all := readAll(t, s1)
	if len(all) != 60 || all[0].Step != 1 || all[59].Step != 30 {
		t.Fatalf("first cursor read %d frames", len(all))
	}
	if !s1.(tui.Ender).Ended() || s1.(tui.Crasher).Crashed() || s1.(tui.Noter).Note() != "a.ntr: whole" {
		t.Fatal("a finished run's cursor does not say it ended, whole")
	}
	if s2.(tui.Ender).Ended() {
		t.Fatal("the second cursor, not read yet, says ended")
	}
	if err := s2.Seek(25); err != nil {
		t.Fatal(err)
	}
	rest := readAll(t, s2)
	if len(rest) != 12 || rest[0].Step != 25 {
		t.Fatalf("after Seek(25): %d frames from step %d, want 12 from 25", len(rest), rest[0].Step)
	}
	// A file gone from the listing is forgotten.
	c.keepOnly([]string{"b.ntr"})
	if len(c.entries) != 0 {
		t.Fatalf("keepOnly left %d entries", len(c.entries))
	}
	if n := len(readAll(t, s2)); n != 0 { // a cursor held keeps working
		t.Fatalf("a held cursor read %d more frames at its end", n)
	}
	// The file replaced under its name (a new inode) is read again.
	os.Remove(filepath.Join(dir, "a.ntr"))
	writeRun(t, dir, "a.ntr", 5)
	s3, _, err := c.Open("a.ntr")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(readAll(t, s3)); n != 10 {
		t.Fatalf("the replaced file: %d frames, want 10", n)
	}
}

func readAll(t *testing.T, src tui.ReplaySource) []probes.Frame {
	t.Helper()
	var out []probes.Frame
	for {
		f, err := src.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
}

// A run being written is followed by the cache: a cursor at the end sees
// frames appended later, then Ended once the end record is written.
func TestCacheFollowsLiveRun(t *testing.T) {
	dir := t.TempDir()
	w, err := record.Create(filepath.Join(dir, "live.ntr"), testMeta("live"))
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 5; s++ {
		w.Write(testFrame(0, s, 10))
	}
	w.Flush()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newRunCache(ctx, dir, nil, 20*time.Millisecond)
	src, _, err := c.Open("live.ntr")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(readAll(t, src)); n != 5 || src.(tui.Ender).Ended() {
		t.Fatalf("%d frames, ended %v; want 5, not ended", n, src.(tui.Ender).Ended())
	}
	for s := 6; s <= 10; s++ {
		w.Write(testFrame(0, s, 10))
	}
	w.Close(record.End{Status: record.StatusCompleted})
	var got []probes.Frame
	for end := time.Now().Add(patience); !src.(tui.Ender).Ended(); {
		if time.Now().After(end) {
			t.Fatalf("not ended after 10 s (%d frames more)", len(got))
		}
		got = append(got, readAll(t, src)...)
		time.Sleep(10 * time.Millisecond)
	}
	got = append(got, readAll(t, src)...)
	if len(got) != 5 || got[4].Step != 10 {
		t.Fatalf("followed %d frames", len(got))
	}
}
