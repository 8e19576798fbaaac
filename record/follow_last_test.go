package record

import (
	"errors"
	"io"
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
