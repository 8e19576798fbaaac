package record

import (
	"errors"
	"fmt"
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
//
// A stream (docs/formats.md: JSON Lines that any trainer can write) is read
// through the same methods: the Reader is written once over its source, the
// run file (runfile.go) or the stream (stream_reader.go), which Open picks by
// the file's content.
type Reader struct {
	in   *input
	meta probes.RunMeta // the header's, sanitised once (probes.RunMeta.Safe)
	src  source
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

// open is Open; listRanks: follow a stream header's list of other ranks'
// streams (only the first stream's list counts).
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
	in := &input{path: path, f: f, target: noStep}
	r := &Reader{in: in}
	if r.src, r.meta, err = openSource(in, listRanks); err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// openSource reads the file's head and opens the source its content names:
// a stream when it starts with a JSON object, else a run file.
func openSource(in *input, listRanks bool) (source, probes.RunMeta, error) {
	p, err := in.readPrelude()
	if err != nil {
		return nil, probes.RunMeta{}, fmt.Errorf("run file %s: %w", in.path, err)
	}
	if isStream(p) {
		return openStreamFile(in, listRanks)
	}
	return openRunFile(in, p)
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

// Meta returns the run's configuration from the header.
func (r *Reader) Meta() probes.RunMeta { return r.meta }

// Path returns the file name given to Open.
func (r *Reader) Path() string { return r.in.path }

// Close closes the file (and the other ranks' streams a stream listed).
func (r *Reader) Close() error {
	r.src.close()
	return r.in.f.Close()
}

// Damage returns the damaged regions met so far, in file order. A region
// still being scanned at the current end is included with its length so far.
func (r *Reader) Damage() []Damage { return r.src.damage() }

// End returns the end record once it has been read (or, for a file closed
// normally, found through the trailer at Open).
func (r *Reader) End() (End, bool) { return r.src.end() }

// Next returns the next Frame. At the current end of the file it returns
// io.EOF; a later call returns Frames appended since (follow by polling).
// A record only partly written is left for a later call and is not damage.
// Damaged bytes are skipped and reported through Damage.
//
// The Frame's strings (alert messages, evaluation splits) come sanitised
// (probes.SafeText), as do Meta's and End's.
func (r *Reader) Next() (probes.Frame, error) {
	f, err := r.src.next()
	if err == nil {
		f.SafeStrings()
	}
	return f, err
}

// Seek positions the reader so that Next returns, in file order, every
// Frame with Step ≥ step and no Frame with a smaller step (frames of all
// variants interleave; each variant's steps increase). A run file
// binary-searches its index records for the last keyframe before which
// every step is < step, then scans forward only through the part of the
// file written after the newest index record; a stream reads again from
// its first line.
func (r *Reader) Seek(step int) error {
	r.src.seek(step)
	return nil
}

// LastStep returns the largest Step written so far, without decoding
// frames: a run file's index gives it up to the newest index record, the
// records after that are scanned. With Seek(LastStep()) a follower starts
// at the live edge instead of replaying the whole history. ok is false when
// the file holds no frame yet.
func (r *Reader) LastStep() (step int, ok bool) { return r.src.lastStep() }

// Stats returns per-series count, minimum and maximum from the index
// records, without reading the frames. Series with no values are omitted.
//
// A stream (docs/formats.md) has no index records: Stats returns nil for it.
func (r *Reader) Stats() []SeriesStat { return r.src.stats() }

// StepDisorder reports the frames of a stream whose step did not increase
// over their variant's previous frame (all ranks together), and the first
// of them in words; 0 for a run file, whose writer cannot produce them.
func (r *Reader) StepDisorder() (n int, first string) { return r.src.stepDisorder() }

// SecondRun returns the offset at which another run begins inside this
// file (two run files concatenated), once Next has reached it; ok is false
// when none was met. Nothing from that offset on is read.
func (r *Reader) SecondRun() (offset int64, ok bool) { return r.src.secondRun() }

// State reports whether the run has ended (Complete), is still being
// written (Writing: the writer holds its lock on the file; on systems
// without open-file-description locks, the file changed in the last 5 s), or
// ended without an end record (Unterminated). Call it after Next returned
// io.EOF. A stream merging several ranks is writing while any rank is,
// complete when every rank is.
func (r *Reader) State() State { return r.src.state() }

// PathLost says why the path given to Open no longer names the file being
// read ("" while it does): deleted, moved away, or another file put in its
// place. The Reader keeps reading the file it opened (its writer, if alive,
// still appends there), so a follower says this rather than going quiet.
func (r *Reader) PathLost() string { return pathLost(r.in.path, r.in.f) }

// ErrShrunk reports a file that became shorter than what was already read
// from it: truncated (or rewritten in place) under the reader. What was read
// before stays valid; what is written into it again is another file's.
var ErrShrunk = errors.New("the file shrank under the reader")

// Crashed reports whether the run is over without an end record: Ended,
// and State Unterminated (the writer was killed or crashed). The dashboard
// shows it instead of leaving the variants "running".
func (r *Reader) Crashed() bool {
	return r.Ended() && r.State() == Unterminated
}

// Ended reports whether nothing more will be appended: the end record has
// been read, or the writer is gone without writing one. Followers (the TUI's
// tui.Ender) stop polling once it is true and Next has returned io.EOF.
//
// The writer may append its last frames and its end record and exit
// between the caller's last Next (io.EOF) and this check. So a writer found
// gone is not the end while a whole record (or damage to skip) still lies
// after the read position: Ended reports false, the caller reads once more
// and gets those frames (and, with the end record, State Complete). Only a
// torn tail, a record the killed writer never finished, is left unread.
// A stream merging several ranks' files asks each rank the same.
func (r *Reader) Ended() bool {
	switch r.State() {
	case Writing:
		return false
	case Complete:
		return true
	}
	return !r.src.moreToRead()
}
