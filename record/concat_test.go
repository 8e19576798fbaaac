package record

import (
	"errors"
	"io"
	"testing"

	"github.com/normtop/normtop/probes"
)

// TestConcatenatedRunFiles (issue 25, case 2): `cat a.ntr b.ntr` reads as
// run a alone, every frame of a intact, none of b's under a's variants; the
// reader says where b begins (SecondRun), b's prelude is not damage and b's
// trailer is not taken for a's. Closed and killed first runs alike.
func TestConcatenatedRunFiles(t *testing.T) {
	for _, tc := range []struct {
		name          string
		aClosed       bool
		bClosed       bool
		aFrames, bLen int
	}{
		{"closed+closed", true, true, 300, 200},
		{"killed+closed", false, true, 300, 500},
		{"killed+big closed", false, true, 300, 40000},
		{"closed+killed", true, false, 300, 50},
		{"killed+killed", false, false, 120, 120},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, want := cleanFile(t, tc.aFrames, tc.aClosed)
			b, _ := cleanFile(t, tc.bLen, tc.bClosed)
			r, err := openBytes(t, append(append([]byte(nil), a...), b...))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got := readAll(t, r)
			if len(got) != len(want) {
				t.Fatalf("read %d frames, want the first run's %d", len(got), len(want))
			}
			for i := range got {
				if !sameFrame(got[i], want[i]) {
					t.Fatalf("frame %d differs from the first run's", i)
				}
			}
			checkFirstRunOnly(t, r, int64(len(a)), want, tc.aClosed)
			checkSeekInFirstRun(t, r, want)
		})
	}
}

// checkFirstRunOnly: the reader of a then b (b starting at offset bAt) says
// where b begins, finds no damage, and answers End, Ended and LastStep with
// the first run's facts (want its frames, aClosed whether it was closed).
func checkFirstRunOnly(t *testing.T, r *Reader, bAt int64, want []probes.Frame, aClosed bool) {
	t.Helper()
	if off, ok := r.SecondRun(); !ok || off != bAt {
		t.Errorf("SecondRun = %d, %v; want %d, true", off, ok, bAt)
	}
	if d := r.Damage(); len(d) > 0 {
		t.Errorf("damage %v: the second run's prelude is not damage", d)
	}
	_, ended := r.End()
	if ended != aClosed {
		t.Errorf("End found = %v, want %v (the first run's, never the second's)", ended, aClosed)
	}
	if !r.Ended() {
		t.Error("Ended = false: a follower would wait on the second run")
	}
	maxStep := 0
	for _, f := range want {
		maxStep = max(maxStep, f.Step)
	}
	if last, ok := r.LastStep(); !ok || last != maxStep {
		t.Errorf("LastStep = %d, %v; want the first run's %d", last, ok, maxStep)
	}
}

// checkSeekInFirstRun: a seek to the middle of the first run reads its
// frames from there on, and none of the second's.
func checkSeekInFirstRun(t *testing.T, r *Reader, want []probes.Frame) {
	t.Helper()
	mid := want[len(want)/2].Step
	if err := r.Seek(mid); err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || f.Step < mid {
			t.Fatalf("after Seek(%d): %v, step %d", mid, err, f.Step)
		}
		n++
	}
	wantN := 0
	for _, f := range want {
		if f.Step >= mid {
			wantN++
		}
	}
	if n != wantN || len(r.Damage()) > 0 {
		t.Errorf("after Seek(%d): %d frames, want %d; damage %v", mid, n, wantN, r.Damage())
	}
}
