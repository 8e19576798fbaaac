package record

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// cleanFile writes n frames and returns the file's bytes and the frames.
func cleanFile(t *testing.T, n int, closed bool) ([]byte, []probes.Frame) {
	t.Helper()
	meta := testMeta(2, 4)
	path := tempRun(t)
	w, err := Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	next := crashFrames(meta)
	var all []probes.Frame
	for i := 0; i < n; i++ {
		f := next(i)
		all = append(all, f)
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	if closed {
		if err := w.Close(End{}); err != nil {
			t.Fatal(err)
		}
	} else if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !closed {
		w.Close(End{})
	}
	return b, all
}

func openBytes(t *testing.T, b []byte) (*Reader, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.ntr")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return Open(path)
}

func dataStartOf(t *testing.T, b []byte) int64 {
	r, err := openBytes(t, b)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return runFileOf(r).dataStart
}

// TestTornTail cuts a file at random offsets: every record complete before
// the cut reads back, nothing is reported as damage.
func TestTornTail(t *testing.T) {
	b, all := cleanFile(t, 3000, false)
	ds := dataStartOf(t, b)
	rng := rand.New(rand.NewPCG(5, 5))
	for it := 0; it < 40; it++ {
		cut := ds + rng.Int64N(int64(len(b))-ds)
		r, err := openBytes(t, b[:cut])
		if err != nil {
			t.Fatal(err)
		}
		got := readAll(t, r)
		// Frames complete before the cut: count records ending ≤ cut.
		want := 0
		for off := ds; ; {
			typ, n := b[off+4], int64(binary.LittleEndian.Uint32(b[off+5:]))
			end := off + recordHeaderSize + n
			if end > cut {
				break
			}
			if typ == recFrame {
				want += framesIn(b[off+recordHeaderSize : end])
			}
			off = end
		}
		if len(got) != want {
			t.Fatalf("cut at %d: read %d frames, want %d", cut, len(got), want)
		}
		for i := range got {
			if !sameFrame(got[i], all[i]) {
				t.Fatalf("cut at %d: frame %d differs", cut, i)
			}
		}
		if d := r.Damage(); len(d) > 0 {
			t.Fatalf("cut at %d: torn tail reported as damage %v", cut, d)
		}
		if r.State() != Unterminated {
			t.Fatalf("cut at %d: state %v", cut, r.State())
		}
		r.Close()
	}
}

// framesIn counts the frames of a frame record's payload.
func framesIn(p []byte) int {
	n := 0
	for len(p) > 0 {
		l, k := binary.Uvarint(p)
		p = p[k+int(l):]
		n++
	}
	return n
}

// frameKey identifies a frame of crashFrames uniquely.
type frameKey struct{ v, s int }

// TestCorruptionResync flips bytes at random offsets: no panic, damage is
// reported with an offset at or before the flipped byte's record, every
// frame returned is exactly one that was written, in order, and reading
// goes on after the damage.
func TestCorruptionResync(t *testing.T) {
	b, all := cleanFile(t, 2500, true)
	ds := dataStartOf(t, b)
	byKey := map[frameKey]int{}
	for i, f := range all {
		byKey[frameKey{f.Variant, f.Step}] = i
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for it := 0; it < 40; it++ {
		c := bytes.Clone(b)
		flips := 1 + rng.IntN(3)
		first := int64(len(c))
		for k := 0; k < flips; k++ {
			off := ds + rng.Int64N(int64(len(c))-ds)
			c[off] ^= byte(1 + rng.IntN(255))
			first = min(first, off)
		}
		r, err := openBytes(t, c)
		if err != nil {
			t.Fatal(err)
		}
		got := readAll(t, r)
		last := -1
		for _, f := range got {
			i, ok := byKey[frameKey{f.Variant, f.Step}]
			if !ok || i <= last || !sameFrame(f, all[i]) {
				t.Fatalf("iteration %d: misread frame (variant %d step %d) after damage at %d", it, f.Variant, f.Step, first)
			}
			last = i
		}
		d := r.Damage()
		if len(d) == 0 {
			t.Fatalf("iteration %d: %d flipped bytes from offset %d, no damage reported", it, flips, first)
		}
		if d[0].Offset > first {
			t.Fatalf("iteration %d: first damage at %d, flipped byte at %d", it, d[0].Offset, first)
		}
		if len(all)-len(got) > 3*flips*200 {
			t.Fatalf("iteration %d: lost %d of %d frames to %d flipped bytes", it, len(all)-len(got), len(all), flips)
		}
		if it < 5 {
			t.Logf("iteration %d: %d flips from %d: read %d of %d frames, damage %v", it, flips, first, len(got), len(all), d)
		}
		r.Close()
	}
}

// TestForgedLength: a record header with a valid checksum but a huge
// length is damage, and reading it allocates no more than MaxRecordSize.
func TestForgedLength(t *testing.T) {
	b, all := cleanFile(t, 50, true)
	ds := dataStartOf(t, b)
	for _, tc := range []struct {
		name   string
		length uint32
		tail   bool // forged record at the end of the file
	}{
		{"4 GiB mid-file", 0xFFFFFFFF, false},
		{"max+1 mid-file", MaxRecordSize + 1, false},
		{"max at the tail", MaxRecordSize, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h [recordHeaderSize]byte
			copy(h[:], syncMarker[:])
			h[4] = recFrame
			binary.LittleEndian.PutUint32(h[5:], tc.length)
			binary.LittleEndian.PutUint32(h[9:], crc32c(h[4:9]))
			var c []byte
			if tc.tail {
				c = append(bytes.Clone(b), h[:]...)
			} else {
				c = append(append(bytes.Clone(b[:ds]), h[:]...), b[ds:]...)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r, err := openBytes(t, c)
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, r)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > MaxRecordSize+4<<20 {
				t.Fatalf("allocated %d bytes", alloc)
			}
			if len(got) != len(all) {
				t.Fatalf("read %d frames, want %d", len(got), len(all))
			}
			if tc.tail != (len(r.Damage()) == 0) {
				t.Fatalf("damage %v (a forged length at the tail looks like a record being written; mid-file it is damage)", r.Damage())
			}
			r.Close()
		})
	}
}

func TestOpenErrors(t *testing.T) {
	b, _ := cleanFile(t, 10, true)
	future := bytes.Clone(b)
	binary.LittleEndian.PutUint32(future[8:], FormatVersion+6)
	binary.LittleEndian.PutUint32(future[12:], crc32c(future[:12]))
	// Both heads damaged: the header and its copy (found as the record
	// after the registry).
	badHeader := bytes.Clone(b)
	badHeader[preludeSize+recordHeaderSize+3] ^= 0xFF
	hl := int(binary.LittleEndian.Uint32(b[preludeSize+5:]))
	regAt := preludeSize + recordHeaderSize + hl
	copyAt := regAt + recordHeaderSize + int(binary.LittleEndian.Uint32(b[regAt+5:]))
	if b[copyAt+4] != recHeadCopy {
		t.Fatalf("record after the registry is of type %d, want the head copy", b[copyAt+4])
	}
	badHeader[copyAt+recordHeaderSize+3] ^= 0xFF
	for _, tc := range []struct {
		name     string
		data     []byte
		want     string
		retrying bool // ErrIncompleteHeader: a follower may retry
	}{
		{"empty", nil, "is empty", true},
		{"magic only", b[:5], "truncated at 5 bytes", true},
		{"prelude only", b[:preludeSize], "header record is truncated", true},
		{"half header", b[:preludeSize+30], "header record is truncated", true},
		{"no registry", b[:preludeSize+recordHeaderSize+int(binary.LittleEndian.Uint32(b[preludeSize+5:]))+5], "registry record is truncated", true},
		{"not a run file", []byte("step,loss\n1,2.5\n"), "not a normtop run file", false},
		{"future version", future, "is format version 7; this normtop reads up to 1", false},
		{"damaged header and copy", badHeader, "header record is damaged", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := openBytes(t, tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "x.ntr") {
				t.Fatalf("error %q does not name the file", err)
			}
			if got := errorsIsIncomplete(err); got != tc.retrying {
				t.Fatalf("errors.Is(err, ErrIncompleteHeader) = %v", got)
			}
		})
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.ntr")); err == nil || !strings.Contains(err.Error(), "missing.ntr does not exist") {
		t.Fatalf("missing file: %v", err)
	}
}

// TestUnknownRecordTypesSkipped: records of types this reader does not know
// (written by a newer normtop) are skipped without damage.
func TestUnknownRecordTypesSkipped(t *testing.T) {
	b, all := cleanFile(t, 300, true)
	ds := dataStartOf(t, b)
	// Insert unknown records at the data start and after the first frame.
	first := ds + recordHeaderSize + int64(binary.LittleEndian.Uint32(b[ds+5:]))
	var c []byte
	c = append(c, b[:ds]...)
	c = appendRecord(c, 200, []byte("from the future"))
	c = append(c, b[ds:first]...)
	c = appendRecord(c, 77, nil)
	c = append(c, b[first:]...)
	r, err := openBytes(t, c)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r)
	if len(got) != len(all) || len(r.Damage()) != 0 {
		t.Fatalf("read %d of %d frames, damage %v", len(got), len(all), r.Damage())
	}
	for i := range all {
		if !sameFrame(got[i], all[i]) {
			t.Fatalf("frame %d differs", i)
		}
	}
}
