package record

import (
	"testing"
	"time"
)

// TestFlushEveryFlushFrames: with the timer off (as when the flusher
// goroutine is starved under load), Write itself makes every flushFrames-th
// frame, and those before it, visible to a reader.
func TestFlushEveryFlushFrames(t *testing.T) {
	old := flushEvery
	flushEvery = time.Hour
	defer func() { flushEvery = old }()
	meta := testMeta(2, 3)
	path := tempRun(t)
	w, err := Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(End{Status: StatusCompleted})
	next := crashFrames(meta)
	visible := func() int {
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return len(readAll(t, r))
	}
	i := 0
	write := func(n int) {
		for range n {
			if err := w.Write(next(i)); err != nil {
				t.Fatal(err)
			}
			i++
		}
	}
	write(flushFrames - 1)
	if n := visible(); n != 0 {
		t.Fatalf("%d frames visible before the %d-th, want 0 (the timer is off)", n, flushFrames)
	}
	write(1)
	if n := visible(); n != flushFrames {
		t.Fatalf("%d frames visible after the %d-th, want all", n, flushFrames)
	}
	write(2*flushFrames + 5)
	if n := visible(); n != 3*flushFrames {
		t.Fatalf("%d frames visible, want %d", n, 3*flushFrames)
	}
}
