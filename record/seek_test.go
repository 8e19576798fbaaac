package record

import (
	"math/rand/v2"
	"testing"

	"github.com/normtop/normtop/probes"
)

// writeLagging writes frames of three variants where variant 2 runs at half
// speed and variant 1 stops early, so steps interleave unevenly.
func writeLagging(t *testing.T, w *Writer, meta probes.RunMeta, n int) []probes.Frame {
	rng := rand.New(rand.NewPCG(7, 7))
	var all []probes.Frame
	for s := 1; s <= n; s++ {
		for v := 0; v < 3; v++ {
			step := s
			if v == 1 && s > n/3 {
				continue
			}
			if v == 2 {
				if s%2 == 1 {
					continue
				}
				step = s / 2
			}
			f := randomFrame(rng, meta, step)
			f.Variant = v
			all = append(all, f)
			if err := w.Write(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	return all
}

// checkSeek seeks r to step and wants every frame of all from there;
// allBits are all's frameBits, taken once for the test's 20 seeks.
func checkSeek(t *testing.T, r *Reader, all []probes.Frame, allBits []bitsFrame, step int) {
	t.Helper()
	if err := r.Seek(step); err != nil {
		t.Fatal(err)
	}
	var want []bitsFrame
	for i, f := range all {
		if f.Step >= step {
			want = append(want, allBits[i])
		}
	}
	got := readAll(t, r)
	if len(got) != len(want) {
		t.Fatalf("seek %d: read %d frames, want %d", step, len(got), len(want))
	}
	for i := range want {
		if !sameBits(frameBits(got[i]), want[i]) {
			t.Fatalf("seek %d: frame %d differs", step, i)
		}
	}
}

func TestSeek(t *testing.T) {
	meta := testMeta(3, 8)
	for _, closed := range []bool{true, false} {
		name := map[bool]string{true: "closed file (trailer)", false: "still writing (backward scan)"}[closed]
		t.Run(name, func(t *testing.T) {
			path := tempRun(t)
			w, err := Create(path, meta)
			if err != nil {
				t.Fatal(err)
			}
			all := writeLagging(t, w, meta, 3000)
			allBits := make([]bitsFrame, len(all))
			for i, f := range all {
				allBits[i] = frameBits(f)
			}
			if closed {
				if err := w.Close(End{}); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				defer w.Close(End{})
			}
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			runFileOf(r).refreshIndex()
			if len(runFileOf(r).idx.keys) < 10 {
				t.Fatalf("only %d indexed keyframes; the test needs several index records", len(runFileOf(r).idx.keys))
			}
			if last, ok := r.LastStep(); !ok || last != 3000 {
				t.Fatalf("LastStep = %d, %v; want 3000", last, ok)
			}
			for _, s := range []int{-5, 0, 1, 2, 999, 1000, 1001, 1500, 2999, 3000, 3001, 1 << 40} {
				checkSeek(t, r, all, allBits, s)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for i := 0; i < 8; i++ {
				checkSeek(t, r, all, allBits, rng.IntN(3100))
			}
		})
	}
}

func TestStats(t *testing.T) {
	meta := testMeta(1, 2)
	path := tempRun(t)
	w, err := Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 100; s++ {
		lv := probes.EmptyLayerValues()
		lv[probes.InStd] = float64(s)
		lv2 := probes.EmptyLayerValues()
		if s%2 == 0 {
			lv2[probes.DistMu] = -float64(s)
		}
		if err := w.Write(probes.Frame{Step: s, Layers: []probes.LayerValues{lv, lv2}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(End{}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := r.Stats()
	want := []SeriesStat{
		{0, 0, "in_std", 100, 1, 100},
		{0, 1, "dist_mu", 50, -100, -2},
	}
	if len(got) != len(want) {
		t.Fatalf("stats %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("stats[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}
