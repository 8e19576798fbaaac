package record

import (
	"errors"
	"io"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
)

// TestFollow: a writer goroutine appends frames at irregular intervals
// without calling Flush; a reader polling with Next sees each frame within
// 1 s and reports Writing until the writer closes.
func TestFollow(t *testing.T) {
	meta := testMeta(2, 3)
	path := tempRun(t)
	w, err := Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	const n = 60
	gen := crashFrames(meta)
	frames := make([]probes.Frame, n)
	for i := range frames {
		frames[i] = gen(i)
	}
	written := make(chan time.Time, n)
	// The writer's Close goes on after its end record is readable (it
	// checks that the path still names its file), so the test waits for
	// it: returning first removed the temporary directory under it, and
	// its error then failed a test that had already finished.
	writerDone := make(chan struct{})
	go func() { defer close(writerDone); writeSlowly(t, w, frames, written) }()
	defer func() { <-writerDone }()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	worst, sawWriting := followFrames(t, r, frames, written)
	if worst > time.Second {
		t.Fatalf("a frame took %v to reach the follower, want ≤ 1 s", worst)
	}
	if !sawWriting {
		t.Fatal("State never reported Writing while the writer was open")
	}
	deadline := time.Now().Add(3 * time.Second)
	for r.State() != Complete && time.Now().Before(deadline) {
		if _, err := r.Next(); err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r.State() != Complete {
		t.Fatalf("state %v after Close, want complete", r.State())
	}
	if !r.Ended() {
		t.Fatal("Ended() is false after the end record was read")
	}
	if len(r.Damage()) > 0 {
		t.Fatalf("damage while following: %v", r.Damage())
	}
	t.Logf("worst follow latency %v", worst)
}

// writeSlowly writes frames at irregular intervals without Flush, sending
// the time each Write returned on written, then closes w.
func writeSlowly(t *testing.T, w *Writer, frames []probes.Frame, written chan<- time.Time) {
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range frames {
		if err := w.Write(frames[i]); err != nil {
			t.Error(err)
			return
		}
		written <- time.Now()
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if err := w.Close(End{Status: StatusCompleted}); err != nil {
		t.Error(err)
	}
}

// followFrames polls r until it has read every frame writeSlowly writes,
// each equal to the one written. It returns the longest time from a Write
// to the Next that returned it, and whether r said Writing on the way (and
// never Ended while it did).
func followFrames(t *testing.T, r *Reader, frames []probes.Frame, written <-chan time.Time) (worst time.Duration, sawWriting bool) {
	for i := 0; i < len(frames); {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			if r.State() == Writing {
				sawWriting = true
				if r.Ended() {
					t.Fatal("Ended() is true while the writer holds the file")
				}
			}
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		at := <-written
		if lag := time.Since(at); lag > worst {
			worst = lag
		}
		if !sameFrame(f, frames[i]) {
			t.Fatalf("frame %d differs", i)
		}
		i++
	}
	return worst, sawWriting
}

// TestFollowPartialRecord: bytes of a record that is still being written
// are not damage and the record is returned once complete.
func TestFollowPartialRecord(t *testing.T) {
	b, all := cleanFile(t, 20, false)
	ds := dataStartOf(t, b)
	path := filepath.Join(t.TempDir(), "growing.ntr")
	cut := ds + 100 // inside the first frames
	if err := writeFileAll(path, b[:cut]); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r)
	for step := cut; step <= int64(len(b)); step += 37 {
		if err := writeFileAll(path, b[:step]); err != nil {
			t.Fatal(err)
		}
		got = append(got, readAll(t, r)...)
	}
	if err := writeFileAll(path, b); err != nil {
		t.Fatal(err)
	}
	got = append(got, readAll(t, r)...)
	if len(got) != len(all) || len(r.Damage()) > 0 {
		t.Fatalf("read %d frames of %d, damage %v", len(got), len(all), r.Damage())
	}
	for i := range all {
		if !sameFrame(got[i], all[i]) {
			t.Fatalf("frame %d differs", i)
		}
	}
}

// TestSeekBeyondEndThenFollow: seeking past what is written yet returns
// nothing until the target steps arrive, then exactly the frames ≥ target.
func TestSeekBeyondEndThenFollow(t *testing.T) {
	meta := testMeta(2, 2)
	path := tempRun(t)
	w, err := Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(End{})
	rng := rand.New(rand.NewPCG(8, 8))
	var all []probes.Frame
	write := func(from, to int) {
		for s := from; s <= to; s++ {
			for v := 0; v < 2; v++ {
				f := randomFrame(rng, meta, s)
				f.Variant = v
				all = append(all, f)
				if err := w.Write(f); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	write(1, 1000)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if last, ok := r.LastStep(); !ok || last != 1000 {
		t.Fatalf("LastStep = %d, %v; want 1000", last, ok)
	}
	if err := r.Seek(1500); err != nil {
		t.Fatal(err)
	}
	if f, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("Next before the target was written: step %d, %v", f.Step, err)
	}
	write(1001, 2000)
	if last, ok := r.LastStep(); !ok || last != 2000 {
		t.Fatalf("LastStep after more writes = %d, %v; want 2000", last, ok)
	}
	got := readAll(t, r)
	want := all[2*1499:]
	if len(got) != len(want) {
		t.Fatalf("read %d frames, want %d", len(got), len(want))
	}
	for i := range want {
		if !sameFrame(got[i], want[i]) {
			t.Fatalf("frame %d differs", i)
		}
	}
}
