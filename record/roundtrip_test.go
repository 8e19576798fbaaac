package record

import (
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

func readAll(t testing.TB, r *Reader) []probes.Frame {
	t.Helper()
	var out []probes.Frame
	for {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, f)
	}
}

func TestRoundTripRandomFrames(t *testing.T) {
	for _, tc := range []struct {
		name             string
		seed             uint64
		variants, layers int
		frames           int
	}{
		{"one variant one layer", 1, 1, 1, 50},
		{"small", 2, 2, 3, 500},
		{"many layers", 3, 4, 12, 2000},
		{"keyframes and index", 4, 3, 8, 8000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tc.seed, 99))
			meta := testMeta(tc.variants, tc.layers)
			path := tempRun(t)
			w, err := Create(path, meta)
			if err != nil {
				t.Fatal(err)
			}
			var want []probes.Frame
			for i := 0; i < tc.frames; i++ {
				f := randomFrame(rng, meta, i/tc.variants+1)
				want = append(want, f)
				if err := w.Write(f); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(End{Status: StatusInterrupted}); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got := readAll(t, r)
			if len(got) != len(want) {
				t.Fatalf("read %d frames, wrote %d", len(got), len(want))
			}
			for i := range want {
				if !sameFrame(got[i], want[i]) {
					t.Fatalf("frame %d differs:\n got %+v\nwant %+v", i, got[i], want[i])
				}
			}
			if d := r.Damage(); len(d) != 0 {
				t.Fatalf("damage in a clean file: %v", d)
			}
			if r.State() != Complete {
				t.Fatalf("state %v, want complete", r.State())
			}
			end, ok := r.End()
			if !ok || end.Status != StatusInterrupted {
				t.Fatalf("end %+v %v", end, ok)
			}
			gm := r.Meta()
			if gm.RunID != meta.RunID || !gm.Start.Equal(meta.Start) || len(gm.Layers) != len(meta.Layers) || gm.Config["lr"] != "0.001" {
				t.Fatalf("meta %+v, want %+v", gm, meta)
			}
		})
	}
}

func TestLastStepEmpty(t *testing.T) {
	path := tempRun(t)
	w, err := Create(path, testMeta(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(End{})
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if s, ok := r.LastStep(); ok {
		t.Fatalf("LastStep of a file without frames = %d, true", s)
	}
}

func TestCreateExisting(t *testing.T) {
	path := tempRun(t)
	w, err := Create(path, testMeta(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(End{})
	_, err = Create(path, testMeta(1, 1))
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path) {
		t.Fatalf("second Create: %v, want an fs.ErrExist naming the file", err)
	}
}

func TestWriteRejectsFramesOutsideTheRun(t *testing.T) {
	w, err := Create(tempRun(t), testMeta(2, 3))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []probes.Frame{
		{Variant: 2},
		{Variant: -1},
		{Variant: 0, Layers: make([]probes.LayerValues, 4)},
	} {
		if err := w.Write(f); err == nil {
			t.Fatalf("Write(%+v) accepted", f)
		}
	}
	if err := w.Write(probes.Frame{Variant: 1, Layers: make([]probes.LayerValues, 3)}); err != nil {
		t.Fatalf("a valid frame after rejected ones: %v", err)
	}
	if err := w.Close(End{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(probes.Frame{}); err == nil {
		t.Fatal("Write after Close accepted")
	}
	if err := w.Close(End{}); err == nil {
		t.Fatal("second Close accepted")
	}
}

// TestReadErrorIsNotEOF: an I/O error is reported, not mistaken for the
// end of the file (a follower would wait forever).
func TestReadErrorIsNotEOF(t *testing.T) {
	path := tempRun(t)
	w, err := Create(path, testMeta(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(probes.Frame{Step: 1})
	w.Close(End{})
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, r); len(got) != 1 {
		t.Fatalf("read %d frames, want 1", len(got))
	}
	r.Close() // the next read (polling for more) fails
	if _, err := r.Next(); err == nil || errors.Is(err, io.EOF) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Next on a closed file: %v, want an I/O error naming the file", err)
	}
}
