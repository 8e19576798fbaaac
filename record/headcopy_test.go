package record

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// headSpan is where the prelude, the header, the registry and the head
// copy of a file written by this version lie: [0, copyAt) holds the first
// three, the copy ends at end.
func headSpan(t *testing.T, b []byte) (copyAt, end int) {
	t.Helper()
	hl := int(binary.LittleEndian.Uint32(b[preludeSize+5:]))
	regAt := preludeSize + recordHeaderSize + hl
	copyAt = regAt + recordHeaderSize + int(binary.LittleEndian.Uint32(b[regAt+5:]))
	if b[copyAt+4] != recHeadCopy {
		t.Fatalf("no head copy after the registry (type %d)", b[copyAt+4])
	}
	return copyAt, copyAt + recordHeaderSize + int(binary.LittleEndian.Uint32(b[copyAt+5:]))
}

// TestHeadFlipRecovered (issue 34, case 8): one flipped bit anywhere in
// the prelude, the header or the registry no longer loses the run: every
// frame is read (from the head's copy), and the damage is reported.
func TestHeadFlipRecovered(t *testing.T) {
	b, all := cleanFile(t, 60, true)
	copyAt, _ := headSpan(t, b)
	dir := t.TempDir()
	path := filepath.Join(dir, "x.ntr")
	t.Logf("one bit flipped in each of the head's %d bytes (prelude, header, registry): every frame read each time", copyAt)
	for at := 0; at < copyAt; at++ {
		c := bytes.Clone(b)
		c[at] ^= 1 << (at % 8)
		if err := os.WriteFile(path, c, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path)
		if err != nil {
			t.Fatalf("bit %d of byte %d flipped: %v", at%8, at, err)
		}
		got := readAll(t, r)
		d := r.Damage()
		r.Close()
		if len(got) != len(all) {
			t.Fatalf("byte %d flipped: %d of %d frames", at, len(got), len(all))
		}
		for i := range all {
			if !sameFrame(got[i], all[i]) {
				t.Fatalf("byte %d flipped: frame %d differs", at, i)
			}
		}
		if len(d) == 0 {
			t.Fatalf("byte %d flipped: no damage reported", at)
		}
	}
}

// TestFileWithoutHeadCopy: a file written before the head copy (the record
// removed) reads as before, with no damage; a damaged header there is the
// error it always was.
func TestFileWithoutHeadCopy(t *testing.T) {
	b, all := cleanFile(t, 60, true)
	copyAt, end := headSpan(t, b)
	// The trailer and index offsets point past the copy: shifting them is
	// not needed for reading front to back, which is what old files got.
	old := append(bytes.Clone(b[:copyAt]), b[end:]...)
	r, err := openBytes(t, old)
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, r)
	r.Close()
	if len(got) != len(all) {
		t.Fatalf("%d of %d frames", len(got), len(all))
	}
	old[preludeSize+recordHeaderSize+3] ^= 0xFF
	if _, err := openBytes(t, old); err == nil || !strings.Contains(err.Error(), "header record is damaged") {
		t.Fatalf("damaged header without a copy: %v", err)
	}
}
