package record

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLocklessStreamWriterIsWriting (issue 25, case 5): a stream whose
// writer takes no lock is "writing" while it was modified in the last 5 s
// (docs/formats.md), so a follower does not end 100 ms in; a writer that did hold
// the lock is known gone the moment the lock is released.
func TestLocklessStreamWriterIsWriting(t *testing.T) {
	path := writeStream(t, []byte(twoLayerHead+line("ln", 1, "")))
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	readAllFrames(t, r)
	if r.Ended() || r.State() != Writing {
		t.Fatalf("lockless stream modified just now: state %v, ended %v; want writing", r.State(), r.Ended())
	}
	old := time.Now().Add(-6 * time.Second)
	os.Chtimes(path, old, old)
	if !r.Ended() || r.State() != Unterminated {
		t.Fatalf("lockless stream idle for 6 s: state %v, ended %v; want unterminated", r.State(), r.Ended())
	}

	// A locking writer: writing while it holds the lock, unterminated as
	// soon as it lets go (killed), though the file was modified just now.
	lpath := writeStream(t, []byte(twoLayerHead+line("ln", 1, "")))
	w, err := os.OpenFile(lpath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := lockWriter(w); err != nil {
		w.Close()
		t.Skip("no OFD locks here:", err)
	}
	lr, err := Open(lpath)
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Close()
	readAllFrames(t, lr)
	if lr.State() != Writing {
		t.Fatalf("locked stream: state %v, want writing", lr.State())
	}
	w.WriteString(line("ln", 2, ""))
	w.Close() // the kernel drops the lock, as for a SIGKILLed writer
	readAllFrames(t, lr)
	if lr.State() != Unterminated || !lr.Crashed() {
		t.Fatalf("lock released without an end line: state %v, crashed %v; want unterminated", lr.State(), lr.Crashed())
	}
}

// TestTruncatedUnderTheReader (issue 25, case 7): a run file or a stream
// cut shorter than what was read is said (ErrShrunk), not waited on at the
// old offset forever.
func TestTruncatedUnderTheReader(t *testing.T) {
	b, _ := cleanFile(t, 200, false)
	path := filepath.Join(t.TempDir(), "x.ntr")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	spath := writeStream(t, []byte(twoLayerHead+line("ln", 1, "")+line("ln", 2, "")+line("ln", 3, "")))
	for _, p := range []struct {
		path string
		keep int64
	}{{path, int64(len(b) / 2)}, {spath, int64(len(twoLayerHead)) + 5}} {
		r, err := Open(p.path)
		if err != nil {
			t.Fatal(err)
		}
		readAllFrames(t, r)
		if err := os.Truncate(p.path, p.keep); err != nil {
			t.Fatal(err)
		}
		_, err = r.Next()
		if !errors.Is(err, ErrShrunk) || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("%s: Next after truncation: %v, want ErrShrunk", filepath.Base(p.path), err)
		}
		r.Close()
	}
}

// TestStreamEndLineIsTheEnd (issue 25, case 8): lines after the end line
// are not read (frames, damage and steps alike).
func TestStreamEndLineIsTheEnd(t *testing.T) {
	path := writeStream(t, []byte(twoLayerHead+line("ln", 1, "")+`{"end":{"status":"completed"}}`+"\n"+
		line("ln", 2, "")+"not json\n"+line("ln", 99, "")))
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if last, _ := r.LastStep(); last != 1 {
		t.Errorf("LastStep %d, want 1 (steps after the end line do not count)", last)
	}
	if fs := readAllFrames(t, r); len(fs) != 1 {
		t.Errorf("%d frames, want the 1 before the end line", len(fs))
	}
	if d := r.Damage(); len(d) > 0 {
		t.Errorf("damage after the end line was read: %v", d)
	}
	if r.State() != Complete || !r.Ended() {
		t.Errorf("state %v", r.State())
	}
}

// TestStreamRanksFromAndListLimits (issue 25, case 8): Seek on a
// multi-rank stream starts every rank there, also one whose file appears
// after the seek; a list of 5,000 missing files costs little; a "../" or
// absolute entry is refused with one line.
func TestStreamRanksFromAndListLimits(t *testing.T) {
	dir := t.TempDir()
	head := `{"normtop_stream":1,"meta":{"RunID":"r","Variants":[{"Name":"ln","Spec":"ln"}],"Layers":["a"]},"streams":["r1.jsonl","r2.jsonl"]}` + "\n"
	rank := `{"normtop_stream":1,"meta":{"Variants":[{"Name":"ln"}],"Layers":["a"]}}` + "\n"
	var body strings.Builder
	for s := 1; s <= 100; s++ {
		body.WriteString(line("ln", s, ""))
	}
	p0 := filepath.Join(dir, "r0.jsonl")
	os.WriteFile(p0, []byte(head+body.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "r1.jsonl"), []byte(rank+body.String()), 0o644)
	r, err := Open(p0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Seek(50); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "r2.jsonl"), []byte(rank+body.String()), 0o644) // appears after the seek
	fs := readAllFrames(t, r)
	for _, f := range fs {
		if f.Step < 50 {
			t.Fatalf("variant %d (rank %d) starts at step %d after Seek(50)", f.Variant, f.Variant, f.Step)
		}
	}
	if len(fs) != 3*51 {
		t.Errorf("%d frames after Seek(50), want 153", len(fs))
	}

	var list []string
	for i := range 5000 {
		list = append(list, fmt.Sprintf("missing%d.jsonl", i))
	}
	js := fmt.Sprintf(`{"normtop_stream":1,"meta":{"Variants":[{"Name":"ln"}],"Layers":["a"]},"streams":[%q`, list[0])
	for _, l := range list[1:] {
		js += fmt.Sprintf(",%q", l)
	}
	var many strings.Builder
	many.WriteString(js + "]}\n")
	for s := 1; s <= 2000; s++ {
		many.WriteString(line("ln", s, ""))
	}
	pm := filepath.Join(dir, "many.jsonl")
	os.WriteFile(pm, []byte(many.String()), 0o644)
	rm, err := Open(pm)
	if err != nil {
		t.Fatal(err)
	}
	n := len(readAllFrames(t, rm))
	rm.State()
	opens := streamOf(rm).ranks.opens
	rm.Close()
	// Each frame used to try to open all 5,000 files (10 million attempts
	// for these 2,000 frames, 9 s); now each is looked for at the first
	// read, after each io.EOF and every rankRetryFrames frames in between.
	if n != 2000 || opens > 5*5000 {
		t.Errorf("5,000 missing ranks: %d frames, %d attempts to open them; want 2000 and at most %d", n, opens, 5*5000)
	}

	for _, bad := range []string{"../../../etc/passwd", "/etc/passwd", "sub/../../x.jsonl"} {
		p := filepath.Join(dir, "bad.jsonl")
		os.WriteFile(p, []byte(fmt.Sprintf(`{"normtop_stream":1,"meta":{"Variants":[{"Name":"ln"}]},"streams":[%q]}`+"\n", bad)), 0o644)
		_, err := Open(p)
		if err == nil || !strings.Contains(err.Error(), "inside the stream's directory") || strings.Contains(err.Error(), "\n") {
			t.Errorf("streams entry %q: %v, want one line refusing it", bad, err)
		}
	}
}

// TestStreamStepDisorder (issue 25, case 11): steps that repeat or go back
// within a variant are kept but counted and the first one named, once,
// however often the lines are re-read by seeks.
func TestStreamStepDisorder(t *testing.T) {
	path := writeStream(t, []byte(twoLayerHead+line("ln", 1, "")+line("ln", 2, "")+line("bn", 1, "")+
		line("ln", 2, "")+line("ln", 1, "")+line("ln", 3, "")+line("bn", 2, "")))
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := len(readAllFrames(t, r)); n != 7 {
		t.Errorf("%d frames, want all 7 kept", n)
	}
	r.Seek(0)
	readAllFrames(t, r)
	n, first := r.StepDisorder()
	if n != 2 || !strings.Contains(first, "variant ln step 2 after step 2") {
		t.Errorf("StepDisorder = %d, %q; want 2, the first naming ln step 2 after step 2", n, first)
	}
	if d := r.Damage(); len(d) > 0 {
		t.Errorf("disorder is not damage: %v", d)
	}
}
