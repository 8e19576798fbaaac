package record

import (
	"bytes"
	"fmt"
	"io"
)

// markDamage opens a damage region at off unless one is open already.
func (r *runFile) markDamage(off int64, why string) {
	r.needKey = true
	if r.inDamage {
		return
	}
	r.inDamage = true
	r.damaged = append(r.damaged, Damage{Offset: off, Reason: why})
}

func (r *runFile) extendDamage(to int64) {
	d := &r.damaged[len(r.damaged)-1]
	d.Length = to - d.Offset
}

// Record read results.
const (
	recOK = iota
	recIncomplete
	recBad
	recTooLong
	recIOError // reading failed (r.ioErr); not a property of the bytes
)

// readRecord reads the record at off. recIncomplete means the bytes there
// are a valid prefix of a record (the writer is still writing it, or was
// killed while writing it).
func (r *runFile) readRecord(off int64) (typ byte, payload []byte, st int) {
	h, err := r.peek(off, recordHeaderSize)
	if err != nil {
		r.ioErr = err
		return 0, nil, recIOError
	}
	if len(h) < recordHeaderSize {
		n := min(len(h), 4)
		if !bytes.Equal(h[:n], syncMarker[:n]) {
			return 0, nil, recBad
		}
		return 0, nil, recIncomplete
	}
	typ, n, pcrc, hs := parseRecordHeader(h)
	switch hs {
	case hdrBadSync, hdrBadCRC:
		return 0, nil, recBad
	case hdrTooLong:
		return 0, nil, recTooLong
	}
	p, err := r.peek(off+recordHeaderSize, n)
	if err != nil {
		r.ioErr = err
		return 0, nil, recIOError
	}
	if len(p) < n {
		return 0, nil, recIncomplete
	}
	if crc32c(p) != pcrc {
		return 0, nil, recBad
	}
	return typ, p, recOK
}

// readChunk is how much the reader reads at once.
const readChunk = 256 << 10

// peek returns up to n bytes at off (fewer at the end of the file). The
// slice is valid until the next peek.
func (r *runFile) peek(off int64, n int) ([]byte, error) {
	if off >= r.bufOff && off+int64(n) <= r.bufOff+int64(len(r.buf)) {
		s := off - r.bufOff
		return r.buf[s : s+int64(n)], nil
	}
	want := max(n, readChunk)
	if cap(r.buf) < want {
		r.buf = make([]byte, want)
	}
	r.buf = r.buf[:want]
	got, err := r.f.ReadAt(r.buf, off)
	r.buf, r.bufOff = r.buf[:got], off
	if err != nil && err != io.EOF {
		return r.buf[:0], err
	}
	return r.buf[:min(n, got)], nil
}

// scanSync looks for the next sync marker at or after off. Without one it
// returns where a marker could still begin once more bytes arrive.
func (r *runFile) scanSync(off int64) (int64, bool) {
	for {
		w, _ := r.peek(off, readChunk)
		if i := bytes.Index(w, syncMarker[:]); i >= 0 {
			return off + int64(i), true
		}
		if len(w) < readChunk {
			return off + int64(max(0, len(w)-len(syncMarker)+1)), false
		}
		off += int64(len(w) - len(syncMarker) + 1)
	}
}

// readHeadRecord reads the record at at, one of the file's head (named
// what in messages), which must be of type want.
func (r *runFile) readHeadRecord(at int64, want byte, what string) ([]byte, error) {
	typ, p, st := r.readRecord(at)
	switch {
	case st == recIOError:
		return nil, fmt.Errorf("run file %s: %w", r.path, r.ioErr)
	case st == recIncomplete:
		return nil, fmt.Errorf("run file %s: %s record is truncated: %w", r.path, what, ErrIncompleteHeader)
	case st != recOK || typ != want:
		return nil, &headDamaged{path: r.path, what: what}
	}
	return p, nil
}

// headDamaged is readHeadRecord's error for a head record that fails its
// checksums or is not of its type: the one case the head copy can mend.
type headDamaged struct{ path, what string }

func (e *headDamaged) Error() string {
	return fmt.Sprintf("run file %s: %s record is damaged", e.path, e.what)
}
