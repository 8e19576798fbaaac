package record

import (
	"bytes"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/normtop/normtop/probes"
)

// liveFile writes n frames as a live run does, sealing a record every 1 to
// 12 frames (the writer's 200 ms flush), and returns the file, the frames
// and, for each byte from the data start, the number of frames of the frame
// record holding it (0 outside frame records).
func liveFile(t *testing.T, n int) ([]byte, []probes.Frame, []int) {
	t.Helper()
	path := tempRun(t)
	w, err := Create(path, crashMeta)
	if err != nil {
		t.Fatal(err)
	}
	next := crashFrames(crashMeta)
	rng := rand.New(rand.NewPCG(5, 5))
	var all []probes.Frame
	for i, left := 0, 0; i < n; i++ {
		f := next(i)
		all = append(all, f)
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
		if left--; left <= 0 {
			w.Flush()
			left = 1 + rng.IntN(12)
		}
	}
	if err := w.Close(End{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	own := make([]int, len(b))
	for at := int(dataStartOf(t, b)); at+recordHeaderSize <= len(b); {
		typ, size, _, hs := parseRecordHeader(b[at : at+recordHeaderSize])
		if hs != hdrOK {
			t.Fatalf("clean file: bad record at %d", at)
		}
		end := at + recordHeaderSize + size
		if typ == recFrame {
			k := framesIn(b[at+recordHeaderSize : end])
			for i := at; i < end; i++ {
				own[i] = k
			}
		}
		at = end
	}
	return b, all, own
}

// TestFlippedBitCostsOnlyItsRecord (issue 25, case 12): one flipped bit
// anywhere after the header costs the frames of the record it hit and no
// others (every frame record starts with a keyframe, so no intact record
// depends on predictor state the damaged one held). Every frame read is
// exactly one written. It logs the frames lost per flipped bit, and the
// file size against the old policy (a keyframe every 64 KiB only).
func TestFlippedBitCostsOnlyItsRecord(t *testing.T) {
	b, all, own := liveFile(t, 3000)
	lost, beyond := flipBits(t, b, all, own, true)
	t.Logf("keyframe per record: 50 single-bit flips in a %d-byte file of %d frames: frames lost per flip median %d / max %d; beyond the damaged record's own: median %d / max %d",
		len(b), len(all), lost[len(lost)/2], lost[len(lost)-1], beyond[len(beyond)/2], beyond[len(beyond)-1])
	if raceBuild {
		return // the comparison with the old policy below only measures
	}

	old := keyframeRecords
	keyframeRecords = 0
	defer func() { keyframeRecords = old }()
	ob, oall, oown := liveFile(t, 3000)
	lost, beyond = flipBits(t, ob, oall, oown, false)
	t.Logf("keyframe per 64 KiB (before): frames lost per flip median %d / max %d; beyond the damaged record's own: median %d / max %d",
		lost[len(lost)/2], lost[len(lost)-1], beyond[len(beyond)/2], beyond[len(beyond)-1])
	t.Logf("file size: %d bytes with a keyframe per record, %d with one per 64 KiB (×%.3f; random values: see README for a real run)", len(b), len(ob), float64(len(b))/float64(len(ob)))
}

// flipBits flips one random bit in each of 50 copies of b and returns the
// frames lost per flip and those lost beyond the damaged record's own,
// sorted. Every frame read must be exactly one written; with strict, no
// frame beyond the damaged record's may be lost.
func flipBits(t *testing.T, b []byte, all []probes.Frame, own []int, strict bool) (lost, beyond []int) {
	t.Helper()
	ds := dataStartOf(t, b)
	byKey := map[frameKey]int{}
	want := make([]bitsFrame, len(all)) // each written frame's bits, taken once for the 50 reads
	for i, f := range all {
		byKey[frameKey{f.Variant, f.Step}] = i
		want[i] = frameBits(f)
	}
	rng := rand.New(rand.NewPCG(12, 25))
	for it := 0; it < 50; it++ {
		c := bytes.Clone(b)
		off := ds + rng.Int64N(int64(len(c))-ds)
		c[off] ^= 1 << rng.IntN(8)
		r, err := openBytes(t, c)
		if err != nil {
			t.Fatal(err)
		}
		got := readAll(t, r)
		r.Close()
		last := -1
		for _, f := range got {
			i, ok := byKey[frameKey{f.Variant, f.Step}]
			if !ok || i <= last || !sameBits(frameBits(f), want[i]) {
				t.Fatalf("flip at %d: misread frame (variant %d step %d)", off, f.Variant, f.Step)
			}
			last = i
		}
		l := len(all) - len(got)
		lost = append(lost, l)
		beyond = append(beyond, l-own[off])
		if strict && l > own[off] {
			t.Errorf("flip at %d: %d frames lost, the damaged record held %d", off, l, own[off])
		}
	}
	slices.Sort(lost)
	slices.Sort(beyond)
	return lost, beyond
}
