package record

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"

	"github.com/normtop/normtop/probes"
)

// ErrIncompleteHeader reports a run file whose header is not (yet) complete:
// the writer may have just created it. A follower may retry Open.
var ErrIncompleteHeader = errors.New("header incomplete")

// Damage is one skipped region of a run file.
type Damage struct {
	Offset  int64  // first damaged byte
	Length  int64  // bytes skipped up to the next valid record
	Reason  string // what was wrong at Offset
	Skipped int    // valid frame records after the region that could not be decoded
	//            because their predictors lived in the damaged bytes (up to the next keyframe)
}

func (d Damage) String() string {
	s := fmt.Sprintf("%d bytes at offset %d (%s)", d.Length, d.Offset, d.Reason)
	if d.Skipped > 0 {
		s += fmt.Sprintf(", %d frame records after it skipped until the next keyframe", d.Skipped)
	}
	return s
}

// State says how a run file ends, as far as the reader has read.
type State int

const (
	// Complete: the end record has been read; nothing more will be appended.
	Complete State = iota
	// Writing: no end record yet and the writer holds its lock on the file:
	// the run is still being written (follow it).
	Writing
	// Unterminated: no end record and no writer: the writer crashed or was
	// killed. Everything complete before the torn tail has been read.
	Unterminated
)

func (s State) String() string {
	switch s {
	case Complete:
		return "complete"
	case Writing:
		return "writing"
	case Unterminated:
		return "unterminated"
	}
	return "state?"
}

// Reader reads a run file front to back, follows it while it grows and
// seeks by step. It takes no locks and never modifies the file. A Reader is
// not safe for concurrent use.
type Reader struct {
	path      string
	f         *os.File
	meta      probes.RunMeta
	reg       *registry
	codec     *codec
	dataStart int64

	pos    int64 // offset of the next record
	buf    []byte
	bufOff int64
	xbuf   []byte // readExact's buffer

	// The frames of the current frame record not yet returned.
	pend    []byte
	pendBuf []byte
	pendAt  int64 // offset and size of that record, for damage reports
	pendLen int64

	ioErr         error // the last read error (recIOError)
	ignoreTrailer bool  // benchmarks: find the index as in an unterminated file
	needKey       bool  // predictors unknown: skip frames until a keyframe

	damage   []Damage
	inDamage bool // damage[len-1] is still open (scanning for the next record)

	end    *End
	target int64 // Next drops frames with Step < target (Seek)

	idx index

	// secondRun is the offset where another run file begins inside this
	// one (two files concatenated); -1 while none was met. Reading stops
	// there: that run's frames would be decoded under this run's variants.
	secondRun int64

	sawLock bool // the writer's lock was seen held: its absence now means the writer is gone

	js        *streamState // non-nil when the file is a stream (docs/formats.md)
	listRanks bool         // Open: follow a stream header's list of other ranks' streams
}

// Open opens a run file for reading: it checks the prelude, the format
// version, and reads the header and the registry. It reads no frames.
//
// A stream (docs/formats.md: JSON Lines that any trainer can write) is told apart
// from a run file by its content and read through the same methods.
//
// The reader reads at offsets (it seeks, follows and reads the trailing
// index), so a run file must be a regular file: a named pipe, a device or a
// socket is refused before it is opened — opening a FIFO that has no writer
// would otherwise block with no message, and /dev/zero would never end.
func Open(path string) (*Reader, error) { return open(path, true) }

func open(path string, listRanks bool) (*Reader, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("run file %s does not exist", path)
		}
		return nil, fmt.Errorf("run file %s: %w", path, err)
	}
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() { // replaced since checkRegular
		f.Close()
		return nil, notRegular(path, st.Mode())
	}
	r := &Reader{path: path, f: f, target: noStep, listRanks: listRanks, secondRun: -1}
	if err := r.readHead(); err != nil {
		f.Close()
		return nil, err
	}
	if r.js == nil {
		r.loadTrailer()
	}
	return r, nil
}

// checkRegular refuses what is not a regular file (following symlinks, so
// runs/latest is fine). A missing file is left to os.Open's message.
func checkRegular(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() {
		return nil
	}
	return notRegular(path, st.Mode())
}

func notRegular(path string, m os.FileMode) error {
	what := "not a regular file"
	switch {
	case m.IsDir():
		what = "a directory"
	case m&os.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&os.ModeCharDevice != 0:
		what = "a character device"
	case m&os.ModeDevice != 0:
		what = "a block device"
	case m&os.ModeSocket != 0:
		what = "a socket"
	}
	return fmt.Errorf("run file %s is %s; run files are read at offsets, so it must be a regular file (copy a piped run file to disk first)", path, what)
}

func (r *Reader) readHead() error {
	p, err := r.peek(0, preludeSize)
	if err != nil {
		return fmt.Errorf("run file %s: %w", r.path, err)
	}
	if isStream(p) {
		return r.readStreamHead(r.listRanks)
	}
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
		r.damage = append(r.damage, Damage{Offset: 0, Length: preludeSize, Reason: "damaged prelude (checksum mismatch); read as format version 1"})
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

// Meta returns the run's configuration from the header.
func (r *Reader) Meta() probes.RunMeta { return r.meta }

// Path returns the file name given to Open.
func (r *Reader) Path() string { return r.path }

// Close closes the file (and the other ranks' streams a stream listed).
func (r *Reader) Close() error {
	if r.js != nil && r.js.ranks != nil {
		r.js.ranks.close()
	}
	return r.f.Close()
}

// Damage returns the damaged regions met so far, in file order. A region
// still being scanned at the current end is included with its length so far.
func (r *Reader) Damage() []Damage {
	d := append([]Damage(nil), r.damage...)
	if r.js != nil && r.js.ranks != nil {
		d = append(d, r.js.ranks.damage()...)
	}
	return d
}

// End returns the end record once it has been read (or, for a file closed
// normally, found through the trailer at Open).
func (r *Reader) End() (End, bool) {
	if r.js != nil {
		return r.streamEnd()
	}
	if r.end == nil {
		return End{}, false
	}
	return r.end.safe(), true
}

// Next returns the next Frame. At the current end of the file it returns
// io.EOF; a later call returns Frames appended since (follow by polling).
// A record only partly written is left for a later call and is not damage.
// Damaged bytes are skipped and reported through Damage.
//
// The Frame's strings (alert messages, evaluation splits) come sanitised
// (probes.SafeText), as do Meta's and End's.
func (r *Reader) Next() (probes.Frame, error) {
	f, err := r.next()
	if err == nil {
		f.SafeStrings()
	}
	return f, err
}

func (r *Reader) next() (probes.Frame, error) {
	if r.js != nil {
		return r.streamNext()
	}
	for {
		if r.secondRun >= 0 && r.pos >= r.secondRun && len(r.pend) == 0 {
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
				r.end = &e
			}
		case recHeader: // the writer writes one, at the start
			r.meetSecondRun(at)
		}
		// index, stats, trailer, registry and unknown types: skip.
	}
}

// nextPending decodes the next frame of the current frame record. ok is
// false when the frame is skipped (before the seek target, or undecodable).
func (r *Reader) nextPending() (f probes.Frame, ok bool) {
	n, k := binary.Uvarint(r.pend)
	if k <= 0 || n > uint64(len(r.pend)-k) {
		r.damage = append(r.damage, Damage{Offset: r.pendAt, Length: r.pendLen, Reason: "bad frame length in a frame record"})
		r.needKey, r.pend = true, nil
		return f, false
	}
	p := r.pend[k : k+int(n)]
	r.pend = r.pend[k+int(n):]
	if r.needKey {
		if key, _, _, _ := peekFrame(p); !key {
			if n := len(r.damage); n > 0 {
				r.damage[n-1].Skipped++
			}
			return f, false
		}
	}
	f, err := r.codec.decode(p)
	if err != nil {
		r.damage = append(r.damage, Damage{Offset: r.pendAt, Length: r.pendLen, Reason: err.Error()})
		r.needKey = true
		return f, false
	}
	r.needKey = false
	return f, int64(f.Step) >= r.target
}
