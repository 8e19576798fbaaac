package record

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/normtop/normtop/probes"
)

// FuzzReader feeds arbitrary bytes to Open, Next, Seek, Stats and the
// exports: none may panic, loop forever or allocate beyond MaxRecordSize,
// and Open errors must name the file.
func FuzzReader(f *testing.F) {
	for _, c := range fuzzSeeds(f) {
		f.Add(c)
	}
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzReadFile(t, dir, &n, data)
		// Mutations almost never keep the checksums valid; recompute them
		// so the decoders behind them (registry, index chain, trailer, end,
		// frames) see mutated but well-framed records too.
		fuzzReadFile(t, dir, &n, reseal(data))
	})
}

// reseal recomputes the prelude checksum and the checksums of every record
// it can walk from the start by its length field.
func reseal(b []byte) []byte {
	b = bytes.Clone(b)
	if len(b) < preludeSize {
		return b
	}
	binary.LittleEndian.PutUint32(b[12:16], crc32c(b[:12]))
	for off := preludeSize; off+recordHeaderSize <= len(b); {
		h := b[off : off+recordHeaderSize]
		copy(h[:4], syncMarker[:])
		n := int(binary.LittleEndian.Uint32(h[5:9]))
		if n > MaxRecordSize || off+recordHeaderSize+n > len(b) {
			break
		}
		binary.LittleEndian.PutUint32(h[9:13], crc32c(h[4:9]))
		binary.LittleEndian.PutUint32(h[13:17], crc32c(b[off+recordHeaderSize:off+recordHeaderSize+n]))
		off += recordHeaderSize + n
	}
	return b
}

// fuzzReadFile runs every reader entry point on data written to a file.
func fuzzReadFile(t *testing.T, dir string, counter *int, data []byte) {
	r := fuzzOpen(t, dir, "f%d.ntr", counter, data)
	if r == nil {
		return
	}
	fuzzFrames(t, r, len(data), false)
	_ = r.State()
	_ = r.Damage()
	_, _ = r.End()
	_ = r.Stats()
	_, _ = r.LastStep()
	for _, s := range []int{0, 3, 1 << 30} {
		if err := r.Seek(s); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
	for _, export := range []func(io.Writer, *Reader) error{ExportCSV, ExportJSONL, ExportMarkdown} {
		r.Seek(-1 << 62)
		if err := export(io.Discard, r); err != nil {
			t.Fatal(err)
		}
	}
}

// fuzzSeeds builds small valid and damaged run files.
func fuzzSeeds(t testing.TB) [][]byte {
	meta := testMeta(2, 1)
	meta.Config = map[string]string{"steps": "3"}
	path := filepath.Join(t.TempDir(), "seed.ntr")
	w, err := Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	lv := probes.EmptyLayerValues()
	for s := 1; s <= 3; s++ {
		for v := 0; v < 2; v++ {
			lv[probes.DistMu], lv[probes.InStd] = 0.5/float64(s), float64(v+s)
			f := probes.Frame{Variant: v, Step: s, Epoch: float64(s) / 3, TrainLoss: 2 / float64(s), Layers: []probes.LayerValues{lv}}
			if s < 3 {
				f.Batch = probes.BatchShape{Rows: 395 * s, Width: 2 + v, Tokens: 700 * s}
			}
			switch {
			case s == 2 && v == 0:
				f.Eval = []probes.Eval{{Split: "val", Loss: 1, Metric: 0.5}}
			case s == 3 && v == 1:
				f.Status = probes.Diverged
				f.Alerts = []probes.Alert{{Kind: probes.AlertDivergence, Step: 3, Layer: -1, Msg: "nan"}}
			case s == 3 && v == 0:
				f.Spectrum = &probes.Spectrum{Step: 3, Sigma: []float64{1, 0.5}, EffRank: 1.8}
			}
			if err := w.Write(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.Flush()
	open, _ := os.ReadFile(path)
	if err := w.Close(End{Status: StatusInterrupted}); err != nil {
		t.Fatal(err)
	}
	closed, _ := os.ReadFile(path)
	flipped := bytes.Clone(closed)
	flipped[len(flipped)/2] ^= 0x40
	future := bytes.Clone(closed)
	binary.LittleEndian.PutUint32(future[8:], FormatVersion+1)
	binary.LittleEndian.PutUint32(future[12:], crc32c(future[:12]))
	var h [recordHeaderSize]byte
	copy(h[:], syncMarker[:])
	h[4] = recFrame
	binary.LittleEndian.PutUint32(h[5:], 0xFFFFFFF0)
	binary.LittleEndian.PutUint32(h[9:], crc32c(h[4:9]))
	forged := append(bytes.Clone(open), h[:]...)
	return [][]byte{closed, open, open[:len(open)-7], flipped, future, forged, closed[:40], nil}
}

// TestWriteFuzzCorpus regenerates testdata/fuzz/FuzzReader when
// NORMTOP_WRITE_CORPUS=1.
func TestWriteFuzzCorpus(t *testing.T) {
	names := []string{"closed", "unterminated", "torn-tail", "flipped-byte", "future-version", "forged-length", "truncated-header", "empty"}
	writeFuzzCorpus(t, "FuzzReader", fuzzSeeds(t), func(i int) string { return names[i] })
}
