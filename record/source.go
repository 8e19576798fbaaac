package record

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/normtop/normtop/probes"
)

// source is one recording format behind a Reader: the run file (runFile:
// binary records, an index, a trailer) or the stream (streamFile: JSON
// Lines that any trainer can write, docs/formats.md, with the other ranks'
// streams its header lists). Open tells them apart by content and opens
// one; every Reader method is written once over it, so a consumer — the
// dashboard, headless, an export, the report — never knows which it reads.
//
// What a source yields: the run's header (read when it is opened: the
// RunMeta the Reader returns), its frames in file order from the seek
// target on (each with its evaluations, batch shape, alerts and spectrum,
// decoded by the format's own codec), the end (status, divergences, final
// evaluations), the damage it skipped, and how far the run is written.
type source interface {
	// next returns the next frame whose step is at or past the seek
	// target; io.EOF at the current end of what is written (a later call
	// returns what was appended since).
	next() (probes.Frame, error)
	// seek makes next start again at the first frame with step ≥ step.
	seek(step int)
	// lastStep is the largest step written so far, without decoding
	// frames where the format allows; ok false while there is none.
	lastStep() (step int, ok bool)
	// end is the run's end once it has been read.
	end() (End, bool)
	// state says whether the run is complete, being written or cut off.
	state() State
	// moreToRead reports whether whole records (lines) or damage to skip
	// lie after the read position: what next would return or step over.
	moreToRead() bool
	// damage lists the regions skipped so far, in file order (then the
	// other ranks' streams').
	damage() []Damage
	// stats summarises each series from the index without reading frames
	// (nil for a format without an index).
	stats() []SeriesStat
	// stepDisorder counts the frames whose step did not increase over
	// their variant's previous one (0 where the writer cannot produce them).
	stepDisorder() (n int, first string)
	// secondRun is the offset where another recording begins inside this
	// file (two run files concatenated), once it has been met.
	secondRun() (offset int64, ok bool)
	// close closes what the source opened besides the Reader's file (the
	// other ranks' streams).
	close()
}

// input is what both formats read through: the file given to Open, where
// reading stands in it, the seek target, what was skipped as damaged, and
// whether its writer's lock has been seen.
type input struct {
	path string
	f    *os.File

	pos    int64 // offset of the next record (line)
	target int64 // frames with Step < target are dropped (Seek)

	damaged []Damage // the regions skipped, in file order
	ioErr   error    // the last read error (recIOError)

	sawLock bool // the writer's lock was seen held: its absence now means the writer is gone
}

// readPrelude reads the file's first bytes (fewer in a shorter file): the
// run file's prelude, or the start of a stream's header line.
func (in *input) readPrelude() ([]byte, error) {
	p := make([]byte, preludeSize)
	n, err := in.f.ReadAt(p, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return p[:n], nil
}

// stopped is what reading frames returns where the record (or line) at
// pos could not be read whole (st recIncomplete or recIOError): io.EOF
// for one still being written, unless the file shrank; the read error.
// kind names the file in messages ("run file", "stream").
func (in *input) stopped(st int, kind string) error {
	if st == recIOError {
		return fmt.Errorf("%s %s: reading at offset %d: %w", kind, in.path, in.pos, in.ioErr)
	}
	if err := in.checkShrunk(); err != nil {
		return err
	}
	return io.EOF
}

// checkShrunk is called at the end of the data: a file now shorter than the
// read position was truncated, which a follower would otherwise never
// notice (it would wait at its old offset and miss what is written again).
func (in *input) checkShrunk() error {
	st, err := in.f.Stat()
	if err != nil || st.Size() >= in.pos {
		return nil
	}
	return fmt.Errorf("%w: %d bytes now, %d already read (truncated or rewritten while being read; everything before was read)", ErrShrunk, st.Size(), in.pos)
}

// writerState is State for a file whose end has not been read: Writing
// while its writer holds the lock on it (on systems without
// open-file-description locks, while it changed in the last 5 s), else
// Unterminated.
//
// A stream's writer need not lock (docs/formats.md: without locks,
// "writing" means "modified in the last 5 s"): lockOptional. Its lock seen
// once and now gone means its writer died; a stream never seen locked
// falls through to the writer process its header names (pid on host,
// 0: not said), then to the time rule.
func (in *input) writerState(lockOptional bool, pid int, host string) State {
	if locked, known := writerLocked(in.f); known {
		if locked {
			in.sawLock = true
			return Writing
		}
		if !lockOptional || in.sawLock {
			return Unterminated
		}
	}
	if lockOptional && writerGone(pid, host) {
		return Unterminated // the header's writer process no longer exists on this host
	}
	if st, err := in.f.Stat(); err == nil && time.Since(st.ModTime()) < 5*time.Second {
		return Writing
	}
	return Unterminated
}
