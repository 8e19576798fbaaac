package record

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/normtop/normtop/probes"
)

// TestFollowerReadsOnceMoreAfterWriterGone reproduces the race of a
// follower paused between its last read (io.EOF) and its liveness check
// while the writer appends its last frames, its end record, and exits: the
// follower must not stop there but read once more, and get everything.
func TestFollowerReadsOnceMoreAfterWriterGone(t *testing.T) {
	meta := testMeta(2, 3)
	path := tempRun(t)
	w, err := Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	next := crashFrames(meta)
	const first, total = 10, 25
	frames := make([]probes.Frame, total)
	for i := range frames {
		frames[i] = next(i)
	}
	frames[total-1].Status = probes.Done
	for i := 0; i < first; i++ {
		if err := w.Write(frames[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := 0
	readToEOF := func() {
		for {
			f, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !sameFrame(f, frames[got]) {
				t.Fatalf("frame %d differs", got)
			}
			got++
		}
	}
	readToEOF()
	if r.Ended() {
		t.Fatal("Ended while the writer holds the file")
	}
	readToEOF()
	// The follower is "paused" here, between io.EOF and its liveness check:
	// the writer finishes and exits.
	for i := first; i < total; i++ {
		if err := w.Write(frames[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(End{Status: StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	for rounds := 0; !r.Ended(); rounds++ { // a follower's loop: check, then read again
		if rounds > 2 {
			t.Fatal("the follower never ends")
		}
		readToEOF()
	}
	if got != total {
		t.Errorf("the follower read %d frames, want %d (the last ones were dropped)", got, total)
	}
	if e, ok := r.End(); !ok || e.Status != StatusCompleted || r.State() != Complete {
		t.Errorf("end record %+v %v, state %v; want completed, Complete", e, ok, r.State())
	}
}

// TestStreamFollowerReadsOnceMore: the same race on a stream (docs/formats.md):
// lines appended, with the end line, between the follower's io.EOF and its
// liveness check are read, not dropped.
func TestStreamFollowerReadsOnceMore(t *testing.T) {
	head := `{"normtop_stream":1,"meta":{"RunID":"r","Model":"m","Metric":"bpc","Variants":[{"Name":"ln","Spec":"ln"}],"Layers":["a"]}}` + "\n"
	line := func(step int) string {
		return `{"variant_index":0,"step":` + strconv.Itoa(step) + `,"train_loss":1}` + "\n"
	}
	path := writeStream(t, []byte(head+line(1)+line(2)))
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := len(readAllFrames(t, r)); n != 2 {
		t.Fatalf("%d frames, want 2", n)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line(3) + line(4) + `{"end":{"status":"completed"}}` + "\n")
	f.Close()
	got := 2
	for rounds := 0; !r.Ended(); rounds++ {
		if rounds > 2 {
			t.Fatal("the follower never ends")
		}
		got += len(readAllFrames(t, r))
	}
	if got != 4 || r.State() != Complete {
		t.Errorf("read %d frames, state %v; want 4, complete", got, r.State())
	}
}

// TestRankStreamsFollowerReadsOnceMore: a stream merging two ranks; both
// ranks' writers append their last lines and end lines, and exit, between
// the follower's io.EOF and its liveness check: all of it is read.
func TestRankStreamsFollowerReadsOnceMore(t *testing.T) {
	dir := t.TempDir()
	head := `{"normtop_stream":1,"meta":{"RunID":"r","Variants":[{"Name":"ln","Spec":"ln"}],"Layers":["a"]},"streams":["run.rank1.jsonl"]}` + "\n"
	h1 := `{"normtop_stream":1,"meta":{"Variants":[{"Name":"ln"}],"Layers":["a"]}}` + "\n"
	p0, p1 := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "run.rank1.jsonl")
	if err := os.WriteFile(p0, []byte(head+line("ln", 1, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p1, []byte(h1+line("ln", 1, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(p0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := len(readAllFrames(t, r))
	end := `{"end":{"status":"completed"}}` + "\n"
	for _, a := range []struct{ path, more string }{{p0, line("ln", 2, "") + end}, {p1, line("ln", 2, "") + line("ln", 3, "") + end}} {
		f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(a.more)
		f.Close()
	}
	for rounds := 0; !r.Ended(); rounds++ {
		if rounds > 3 {
			t.Fatal("the follower never ends")
		}
		got += len(readAllFrames(t, r))
	}
	if got != 5 || r.State() != Complete {
		t.Errorf("read %d frames, state %v; want 5, complete", got, r.State())
	}
}
