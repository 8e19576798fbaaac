package record

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"

	"github.com/normtop/normtop/probes"
)

// runFile is the run file as a Reader's source (docs/formats.md "Run
// file"): checksummed binary records after a prelude — the header, the
// registry of series, frame records (keyframes and frames predicted from
// the previous ones), index and stats records, the end record and, in a
// file closed normally, a trailer. Records are read through one buffer
// (reader_records.go); the index and trailer are read out of order
// (seek.go); a damaged header is read from its copy (headcopy.go).
type runFile struct {
	*input
	meta      probes.RunMeta
	reg       *registry
	codec     *codec
	dataStart int64

	buf    []byte
	bufOff int64
	xbuf   []byte // readExact's buffer

	// The frames of the current frame record not yet returned.
	pend    []byte
	pendBuf []byte
	pendAt  int64 // offset and size of that record, for damage reports
	pendLen int64

	ignoreTrailer bool // benchmarks: find the index as in an unterminated file
	needKey       bool // predictors unknown: skip frames until a keyframe
	inDamage      bool // damage[len-1] is still open (scanning for the next record)

	endRec *End // the end record, once read

	idx index

	// secondRunAt is the offset where another run file begins inside this
	// one (two files concatenated); -1 while none was met. Reading stops
	// there: that run's frames would be decoded under this run's variants.
	secondRunAt int64
}

// openRunFile reads a run file's head: the prelude p (its first bytes,
// fewer in a shorter file), the header and the registry, and through the
// trailer of a closed file its end record. It reads no frames.
func openRunFile(in *input, p []byte) (*runFile, probes.RunMeta, error) {
	r := &runFile{input: in, secondRunAt: -1}
	if err := r.readHead(p); err != nil {
		return nil, probes.RunMeta{}, err
	}
	r.loadTrailer()
	return r, r.meta, nil
}

func (r *runFile) readHead(p []byte) error {
	switch {
	case len(p) == 0:
		return fmt.Errorf("run file %s is empty: %w (the writer may not have started)", r.path, ErrIncompleteHeader)
	case len(p) < len(fileMagic) && bytes.HasPrefix(fileMagic[:], p) || len(p) >= len(fileMagic) && len(p) < preludeSize && [8]byte(p[:8]) == fileMagic:
		return fmt.Errorf("run file %s is truncated at %d bytes: %w", r.path, len(p), ErrIncompleteHeader)
	case len(p) < len(fileMagic) || !nearMagic(p[:8]):
		return fmt.Errorf("%s is not a normtop run file (bad magic)", r.path)
	}
	if [8]byte(p[:8]) != fileMagic || crc32c(p[:12]) != binary.LittleEndian.Uint32(p[12:16]) {
		// A flipped bit in the magic, the version or the checksum: the
		// records that follow (or the head's copy) say whether this is a
		// run file of this version; if none verifies, Open fails there.
		r.damaged = append(r.damaged, Damage{Offset: 0, Length: preludeSize, Reason: "damaged prelude (checksum mismatch); read as format version 1"})
	} else if v := binary.LittleEndian.Uint32(p[8:12]); v > FormatVersion {
		return fmt.Errorf("run file %s is format version %d; this normtop reads up to %d", r.path, v, FormatVersion)
	} else if v == 0 {
		return fmt.Errorf("run file %s: invalid format version 0", r.path)
	}
	hp, rp, dataStart, err := r.headRecords()
	if err != nil {
		return err
	}
	var h headerJSON
	if err := json.Unmarshal(hp, &h); err != nil {
		return fmt.Errorf("run file %s: header record: %v", r.path, err)
	}
	if h.FormatVersion > FormatVersion {
		return fmt.Errorf("run file %s is format version %d; this normtop reads up to %d", r.path, h.FormatVersion, FormatVersion)
	}
	// Bounded before anything is built per layer or series. What reads the
	// frames (standings, a report) keeps state for each of this build's
	// probes, whatever the file's registry lists, so this build's count is
	// the one that bounds the work.
	if np := int(probes.NumProbes); seriesOver(len(h.Meta.Variants), len(h.Meta.Layers), np) {
		return fmt.Errorf("run file %s: %w", r.path, seriesError(len(h.Meta.Variants), len(h.Meta.Layers), np))
	}
	if l := h.Meta.Histogram; l != nil {
		if err := l.Check(); err != nil {
			return fmt.Errorf("run file %s: header: %v", r.path, err)
		}
	}
	r.meta = h.Meta.Safe() // every output shows these strings: sanitised once, here
	reg, err := decodeRegistry(rp, r.meta)
	if err != nil {
		return fmt.Errorf("run file %s: %v", r.path, err)
	}
	r.reg, r.codec = reg, newCodec(reg)
	r.dataStart = dataStart
	r.pos = r.dataStart
	r.needKey = true
	return nil
}

// nearMagic reports whether b is the file magic with at most two bits
// flipped: damage to a run file, not another kind of file.
func nearMagic(b []byte) bool {
	d := 0
	for i, c := range fileMagic {
		d += bits.OnesCount8(c ^ b[i])
	}
	return d <= 2
}

func (r *runFile) next() (probes.Frame, error) {
	for {
		if r.secondRunAt >= 0 && r.pos >= r.secondRunAt && len(r.pend) == 0 {
			return probes.Frame{}, io.EOF
		}
		if len(r.pend) > 0 {
			if f, ok := r.nextPending(); ok {
				return f, nil
			}
			continue
		}
		typ, p, st := r.readRecord(r.pos)
		switch st {
		case recIncomplete, recIOError:
			return probes.Frame{}, r.stopped(st, "run file")
		case recBad:
			r.markDamage(r.pos, "bad record")
			next, found := r.scanSync(r.pos + 1)
			r.extendDamage(next)
			r.pos = next
			if !found {
				return probes.Frame{}, io.EOF
			}
			continue
		case recTooLong:
			r.markDamage(r.pos, "record length over the maximum")
			r.pos++
			r.extendDamage(r.pos)
			continue
		}
		at := r.pos
		r.pos += recordHeaderSize + int64(len(p))
		r.inDamage = false
		switch typ {
		case recFrame:
			// Copy: p aliases the read buffer, which the next read reuses.
			r.pendBuf = append(r.pendBuf[:0], p...)
			r.pend, r.pendAt, r.pendLen = r.pendBuf, at, recordHeaderSize+int64(len(p))
		case recEnd:
			if e, ok := decodeEnd(p, r.reg.variants); ok {
				r.endRec = &e
			}
		case recHeader: // the writer writes one, at the start
			r.meetSecondRun(at)
		}
		// index, stats, trailer, registry and unknown types: skip.
	}
}

// nextPending decodes the next frame of the current frame record. ok is
// false when the frame is skipped (before the seek target, or undecodable).
func (r *runFile) nextPending() (f probes.Frame, ok bool) {
	n, k := binary.Uvarint(r.pend)
	if k <= 0 || n > uint64(len(r.pend)-k) {
		r.damaged = append(r.damaged, Damage{Offset: r.pendAt, Length: r.pendLen, Reason: "bad frame length in a frame record"})
		r.needKey, r.pend = true, nil
		return f, false
	}
	p := r.pend[k : k+int(n)]
	r.pend = r.pend[k+int(n):]
	if r.needKey {
		if key, _, _, _ := peekFrame(p); !key {
			if n := len(r.damaged); n > 0 {
				r.damaged[n-1].Skipped++
			}
			return f, false
		}
	}
	f, err := r.codec.decode(p)
	if err != nil {
		r.damaged = append(r.damaged, Damage{Offset: r.pendAt, Length: r.pendLen, Reason: err.Error()})
		r.needKey = true
		return f, false
	}
	r.needKey = false
	return f, int64(f.Step) >= r.target
}

// meetSecondRun stops reading at a header record met after the first: the
// start of another run file appended to this one (cat a.ntr b.ntr). The
// 16-byte prelude just before it is that file's start, not damage.
func (r *runFile) meetSecondRun(headerAt int64) {
	r.secondRunAt = headerAt
	if n := len(r.damaged); n > 0 {
		d := r.damaged[n-1]
		if d.Offset+d.Length == headerAt && d.Length >= preludeSize {
			if p, err := r.peek(headerAt-preludeSize, preludeSize); err == nil && len(p) == preludeSize && [8]byte(p[:8]) == fileMagic {
				r.secondRunAt = headerAt - preludeSize
				if d.Length == preludeSize {
					r.damaged = r.damaged[:n-1]
				} else {
					r.damaged[n-1].Length -= preludeSize
				}
			}
		}
	}
	r.pend = nil
}

func (r *runFile) secondRun() (int64, bool) { return r.secondRunAt, r.secondRunAt >= 0 }

func (r *runFile) end() (End, bool) {
	if r.endRec == nil {
		return End{}, false
	}
	return r.endRec.safe(), true
}

func (r *runFile) state() State {
	if r.endRec != nil {
		return Complete
	}
	return r.writerState(false, 0, "")
}

func (r *runFile) moreToRead() bool {
	if len(r.pend) > 0 {
		return true
	}
	if r.secondRunAt >= 0 && r.pos >= r.secondRunAt {
		return false
	}
	_, _, st := r.readRecord(r.pos)
	return st != recIncomplete && st != recIOError
}

func (r *runFile) damage() []Damage { return append([]Damage(nil), r.damaged...) }

// stepDisorder: the writer refuses a step that does not increase.
func (r *runFile) stepDisorder() (int, string) { return 0, "" }

func (r *runFile) close() {}
