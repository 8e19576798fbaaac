package record

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRealRunFile measures a run file written by `normtop train` (set
// NORMTOP_RUN_FILE=path): probe values, bytes per value, and that its frames
// survive a second write/read round trip bit-exactly. Skipped otherwise.
func TestRealRunFile(t *testing.T) {
	path := os.Getenv("NORMTOP_RUN_FILE")
	if path == "" {
		t.Skip("set NORMTOP_RUN_FILE to a run file written by normtop train")
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	frames := readAll(t, r)
	if len(r.Damage()) > 0 || r.State() != Complete {
		t.Fatalf("damage %v, state %v", r.Damage(), r.State())
	}
	copyPath := filepath.Join(t.TempDir(), "copy.ntr")
	w, err := Create(copyPath, r.Meta())
	if err != nil {
		t.Fatal(err)
	}
	values := 0
	for i := range frames {
		values += countValues(&frames[i])
		if err := w.Write(frames[i]); err != nil {
			t.Fatal(err)
		}
	}
	nv, frameBytes := w.Stats()
	if err := w.Close(End{}); err != nil {
		t.Fatal(err)
	}
	if int(nv) != values {
		t.Fatalf("writer counted %d values, frames hold %d", nv, values)
	}
	r2, err := Open(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	again := readAll(t, r2)
	for i := range frames {
		if !sameFrame(frames[i], again[i]) {
			t.Fatalf("frame %d differs after a second round trip", i)
		}
	}
	st, _ := os.Stat(path)
	t.Logf("%s: %d frames, %d variants × %d layers, %d probe values; frame records %.3f B/value, whole file %.3f B/value",
		path, len(frames), len(r.Meta().Variants), len(r.Meta().Layers), values,
		float64(frameBytes)/float64(values), float64(st.Size())/float64(values))
}
