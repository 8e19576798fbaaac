package record

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
)

// TestStreamRoundTrip: header + `normtop export --format jsonl` lines + end
// line is a stream, and reading it gives back the Frames (up to what JSON
// cannot say: NaN payloads and nanoseconds). The header says the alerts are
// written (the export's own): the reader derives none.
func TestStreamRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	meta := testMeta(3, 4)
	var frames []probes.Frame
	for i := 0; i < 300; i++ {
		f := randomFrame(rng, meta, i/3+1)
		if f.Status == probes.Diverged {
			f.Status = probes.Running
		}
		frames = append(frames, f)
	}
	var b []byte
	b = append(b, streamHeaderWith(t, meta, map[string]any{"alerts": "written"})...)
	b = append(b, exportedLines(t, meta, frames)...)
	b = append(b, `{"end":{"status":"completed"}}`+"\n"...)
	r, err := Open(writeStream(t, b))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !sameMeta(r.Meta(), meta) {
		t.Fatalf("meta %+v, want %+v", r.Meta(), meta)
	}
	got := readAllFrames(t, r)
	if len(got) != len(frames) {
		t.Fatalf("read %d frames, wrote %d", len(got), len(frames))
	}
	for i := range got {
		g := got[i]
		g.Elapsed = g.Elapsed.Round(1000)
		if want := asStreamed(frames[i], len(meta.Layers)); !sameFrame(g, want) {
			t.Fatalf("frame %d:\n got %+v\nwant %+v", i, g, want)
		}
	}
	if d := r.Damage(); len(d) != 0 {
		t.Errorf("damage %v", d)
	}
	if r.State() != Complete {
		t.Errorf("state %v, want complete", r.State())
	}
	if _, ok := r.End(); !ok {
		t.Error("no end")
	}
	if s, ok := r.LastStep(); !ok || s != 100 {
		t.Errorf("LastStep = %d %v, want 100", s, ok)
	}
}

func TestStreamLinesByName(t *testing.T) {
	b := twoLayerHead +
		line("bn", 1, `,"layers":{"b":{"g_mu":2,"no_such_probe":1},"zz":{"g_mu":3}}`) +
		`{"variant_index":0,"step":1,"status":"done","epoch":null,"eval":[{"split":"val","loss":"+Inf","metric":0.5}]}` + "\n" +
		`{"end":{"status":"diverged","diverged":{"bn":7}}}` + "\n"
	r, err := Open(writeStream(t, []byte(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fs := readAllFrames(t, r)
	if len(fs) != 2 {
		t.Fatalf("%d frames, want 2 (damage %v)", len(fs), r.Damage())
	}
	if fs[0].Variant != 1 || len(fs[0].Layers) != 2 || fs[0].Layers[1][probes.GMu] != 2 || fs[0].Layers[0].Has(probes.GMu) {
		t.Errorf("frame 0 = %+v", fs[0])
	}
	f := fs[1]
	if f.Variant != 0 || f.Status != probes.Done || !math.IsNaN(f.Epoch) || f.Layers != nil || len(f.Eval) != 1 ||
		!math.IsInf(f.Eval[0].Loss, 1) || f.Eval[0].Metric != 0.5 || !math.IsNaN(f.Eval[0].TrainLoss) || !math.IsNaN(f.TrainLoss) {
		t.Errorf("frame 1 = %+v", f)
	}
	e, ok := r.End()
	if !ok || e.Status != StatusDiverged || e.Diverged[1] != 7 || len(e.Final[0]) != 1 {
		t.Errorf("end %+v %v", e, ok)
	}
}

// TestStreamTornTailAndFollow: a last line without its newline (the writer
// is mid-write, or crashed) is not read, not damage, and is read once it is
// complete.
func TestStreamTornTailAndFollow(t *testing.T) {
	full := twoLayerHead + line("ln", 1, "") + line("ln", 2, "")
	third := line("ln", 3, `,"layers":{"a":{"in_std":1}}`)
	path := writeStream(t, []byte(full+third[:20]))
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := len(readAllFrames(t, r)); n != 2 {
		t.Fatalf("%d frames before the torn line, want 2", n)
	}
	if d := r.Damage(); len(d) != 0 {
		t.Fatalf("a torn tail is not damage: %v", d)
	}
	// No lock was ever taken: "writing" means modified in the last 5 s
	// (docs/formats.md; issue 25 case 5).
	if s := r.State(); s != Writing {
		t.Errorf("state %v of a lockless stream modified just now, want writing", s)
	}
	old := time.Now().Add(-10 * time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if s := r.State(); s != Unterminated {
		t.Errorf("state %v, want unterminated (no lock, not modified for 10 s, no end line)", s)
	}
	if err := writeFileAll(path, []byte(full+third)); err != nil {
		t.Fatal(err)
	}
	fs := readAllFrames(t, r)
	if len(fs) != 1 || fs[0].Step != 3 || fs[0].Layers[0][probes.InStd] != 1 {
		t.Fatalf("after the line was completed: %+v", fs)
	}
}

func TestStreamDamagedLines(t *testing.T) {
	b := twoLayerHead + line("ln", 1, "") + "{not json\n" + line("xx", 2, "") +
		`{"variant":"ln"}` + "\n" + `{"step":3}` + "\n" + line("ln", 4, `,"status":"sleeping"`) + "\n" + line("ln", -5, "") + line("bn", 5, "")
	r, err := Open(writeStream(t, []byte(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fs := readAllFrames(t, r)
	if len(fs) != 2 || fs[0].Step != 1 || fs[1].Step != 5 {
		t.Fatalf("frames %+v", fs)
	}
	d := r.Damage()
	if len(d) != 6 {
		t.Fatalf("damage %v, want 6 regions", d)
	}
	for _, want := range []string{"not a JSON object", `variant "xx"`, `no "step"`, "names no variant", `status "sleeping"`, "never negative"} {
		found := false
		for _, x := range d {
			found = found || strings.Contains(x.Reason, want)
		}
		if !found {
			t.Errorf("no damage mentions %q: %v", want, d)
		}
	}
}

func TestStreamOpenErrors(t *testing.T) {
	for _, c := range []struct {
		name, body, want string
		incomplete       bool
	}{
		{"export output", `{"variant":"ln","step":1}` + "\n", "not a normtop stream", false},
		{"newer", `{"normtop_stream":9,"meta":{"Variants":[{"Name":"a"}]}}` + "\n", "version 9", false},
		{"no variants", `{"normtop_stream":1,"meta":{}}` + "\n", "names no variant", false},
		{"not json", "{oops\n", "not a JSON object", false},
		{"header being written", `{"normtop_stream":1,"me`, "not complete", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeStream(t, []byte(c.body))
			_, err := Open(path)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want one naming %s and saying %q", err, path, c.want)
			}
			if errors.Is(err, ErrIncompleteHeader) != c.incomplete {
				t.Errorf("incomplete = %v, want %v", !c.incomplete, c.incomplete)
			}
		})
	}
}

func TestStreamSeek(t *testing.T) {
	b := twoLayerHead
	for s := 1; s <= 20; s++ {
		b += line("ln", s, "") + line("bn", s, "")
	}
	r, err := Open(writeStream(t, []byte(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	readAllFrames(t, r)
	if err := r.Seek(15); err != nil {
		t.Fatal(err)
	}
	fs := readAllFrames(t, r)
	if len(fs) != 12 || fs[0].Step != 15 {
		t.Fatalf("after Seek(15): %d frames from step %d", len(fs), fs[0].Step)
	}
	if s, ok := r.LastStep(); !ok || s != 20 {
		t.Errorf("LastStep %d %v", s, ok)
	}
	if r.Stats() != nil {
		t.Error("a stream has no index statistics")
	}
}

// TestStreamWriterLock: a writer holding a POSIX lock (Python's
// fcntl.lockf) makes the stream Writing; without it, Unterminated.
func TestStreamWriterLock(t *testing.T) {
	path := writeStream(t, []byte(twoLayerHead+line("ln", 1, "")))
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK}
	if err := syscall.FcntlFlock(w.Fd(), syscall.F_SETLK, &lk); err != nil {
		t.Skipf("no POSIX locks here: %v", err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	readAllFrames(t, r)
	if s := r.State(); s != Writing {
		t.Errorf("state with the writer's lock held: %v, want writing", s)
	}
	w.Close() // drops the process's POSIX lock, as the writer's death does
	if s := r.State(); s != Unterminated {
		t.Errorf("state after the writer went: %v, want unterminated", s)
	}
}

// TestStreamRanks: rank 0's header lists rank 1's stream, which appears
// later; the run shows both ranks' variants side by side.
func TestStreamRanks(t *testing.T) {
	dir := t.TempDir()
	head := `{"normtop_stream":1,"meta":{"RunID":"r","Variants":[{"Name":"ln","Spec":"ln"}],"Layers":["a","b"]},"streams":["run.rank1.jsonl"]}` + "\n"
	p0 := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(p0, []byte(head+line("ln", 1, "")+line("ln", 2, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(p0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m := r.Meta()
	if len(m.Variants) != 2 || m.Variants[0].Spec != "ln@rank0" || m.Variants[1].Spec != "ln@rank1" {
		t.Fatalf("variants %+v", m.Variants)
	}
	if n := len(readAllFrames(t, r)); n != 2 {
		t.Fatalf("%d frames of rank 0", n)
	}
	if _, ok := r.End(); ok {
		t.Error("ended before rank 1 wrote anything")
	}
	h1 := `{"normtop_stream":1,"meta":{"Variants":[{"Name":"ln"}],"Layers":["b","a"]}}` + "\n"
	p1 := filepath.Join(dir, "run.rank1.jsonl")
	if err := os.WriteFile(p1, []byte(h1+line("ln", 1, `,"layers":{"a":{"g_mu":5}}`)+line("ln", 2, "")+`{"end":{"status":"completed"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAll(p0, []byte(head+line("ln", 1, "")+line("ln", 2, "")+line("ln", 3, "")+`{"end":{"status":"completed"}}`+"\n")); err != nil {
		t.Fatal(err)
	}
	fs := readAllFrames(t, r)
	if len(fs) != 3 {
		t.Fatalf("%d frames after rank 1 appeared, want 3", len(fs))
	}
	var steps []int
	for _, f := range fs {
		steps = append(steps, f.Step*10+f.Variant)
	}
	if steps[0] != 11 || steps[1] != 21 || steps[2] != 30 {
		t.Errorf("merged order (step·10+variant) %v, want [11 21 30]", steps)
	}
	if fs[0].Layers[0][probes.GMu] != 5 {
		t.Errorf("rank 1's layer a not mapped by name: %+v", fs[0].Layers)
	}
	if e, ok := r.End(); !ok || e.Status != StatusCompleted {
		t.Errorf("end %+v %v", e, ok)
	}
	if r.State() != Complete {
		t.Errorf("state %v", r.State())
	}
	if err := r.Seek(2); err != nil {
		t.Fatal(err)
	}
	if n := len(readAllFrames(t, r)); n != 3 {
		t.Errorf("after Seek(2): %d frames, want 3", n)
	}
}

// TestStreamRankSymlinkOut (issue 34, case 9): a rank stream whose name is
// local but is a symbolic link out of the directory (or runs through a
// linked subdirectory) is not read; the damage says why. A link that stays
// inside is followed.
func TestStreamRankSymlinkOut(t *testing.T) {
	root := t.TempDir()
	dir, outside := filepath.Join(root, "run"), filepath.Join(root, "elsewhere")
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rank := `{"normtop_stream":1,"meta":{"Variants":[{"Name":"ln"}],"Layers":["a"]}}` + "\n" + line("ln", 1, "") + `{"end":{"status":"completed"}}` + "\n"
	for _, p := range []string{filepath.Join(outside, "r1.jsonl"), filepath.Join(dir, "inside.jsonl")} {
		if err := os.WriteFile(p, []byte(rank), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, link, target string
		refused            bool
	}{
		{"link out", "r1.jsonl", "../elsewhere/r1.jsonl", true},
		{"directory link out", "sub", "../elsewhere", true},
		{"link inside", "r1.jsonl", "inside.jsonl", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "r1.jsonl"
			if c.link == "sub" {
				name = "sub/r1.jsonl"
			}
			os.Remove(filepath.Join(dir, "r1.jsonl"))
			os.Remove(filepath.Join(dir, "sub"))
			if err := os.Symlink(c.target, filepath.Join(dir, c.link)); err != nil {
				t.Fatal(err)
			}
			head := `{"normtop_stream":1,"meta":{"Variants":[{"Name":"ln"}],"Layers":["a"]},"streams":["` + name + `"]}` + "\n"
			p0 := filepath.Join(dir, "run.jsonl")
			if err := os.WriteFile(p0, []byte(head+line("ln", 1, "")+`{"end":{"status":"completed"}}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Open(p0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			n := len(readAllFrames(t, r))
			var reasons []string
			for _, d := range r.Damage() {
				reasons = append(reasons, d.Reason)
			}
			said := strings.Contains(strings.Join(reasons, "; "), "out of the stream's directory")
			if c.refused && (n != 1 || !said) || !c.refused && (n != 2 || said) {
				t.Errorf("%d frames, damage %q", n, reasons)
			}
		})
	}
}
