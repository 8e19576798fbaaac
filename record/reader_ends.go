package record

import (
	"errors"
	"fmt"
)

// How a run file's reading ends besides its end record: another run file
// appended to it, a file cut shorter under the reader, a writer gone.

// meetSecondRun stops reading at a header record met after the first: the
// start of another run file appended to this one (cat a.ntr b.ntr). The
// 16-byte prelude just before it is that file's start, not damage.
func (r *Reader) meetSecondRun(headerAt int64) {
	r.secondRun = headerAt
	if n := len(r.damage); n > 0 {
		d := r.damage[n-1]
		if d.Offset+d.Length == headerAt && d.Length >= preludeSize {
			if p, err := r.peek(headerAt-preludeSize, preludeSize); err == nil && len(p) == preludeSize && [8]byte(p[:8]) == fileMagic {
				r.secondRun = headerAt - preludeSize
				if d.Length == preludeSize {
					r.damage = r.damage[:n-1]
				} else {
					r.damage[n-1].Length -= preludeSize
				}
			}
		}
	}
	r.pend = nil
}

// SecondRun returns the offset at which another run begins inside this
// file (two run files concatenated), once Next has reached it; ok is false
// when none was met. Nothing from that offset on is read.
func (r *Reader) SecondRun() (offset int64, ok bool) {
	return r.secondRun, r.secondRun >= 0
}

// ErrShrunk reports a file that became shorter than what was already read
// from it: truncated (or rewritten in place) under the reader. What was read
// before stays valid; what is written into it again is another file's.
var ErrShrunk = errors.New("the file shrank under the reader")

// checkShrunk is called at the end of the data: a file now shorter than the
// read position was truncated, which a follower would otherwise never
// notice (it would wait at its old offset and miss what is written again).
func (r *Reader) checkShrunk() error {
	st, err := r.f.Stat()
	if err != nil || st.Size() >= r.pos {
		return nil
	}
	return fmt.Errorf("%w: %d bytes now, %d already read (truncated or rewritten while being read; everything before was read)", ErrShrunk, st.Size(), r.pos)
}

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
	return !r.moreToRead()
}

// moreToRead reports whether whole records (or lines of a stream, or damage
// to skip) lie after the read position, which Next would return or step
// over; for a stream merging several ranks, after any rank's position.
func (r *Reader) moreToRead() bool {
	if r.js != nil {
		_, _, st := r.readLine(r.pos)
		own := (st == recOK || st == recTooLong) && (r.js.endAt == 0 || r.pos < r.js.endAt)
		if r.js.ranks != nil {
			return r.js.ranks.moreToRead(own)
		}
		return own
	}
	if len(r.pend) > 0 {
		return true
	}
	if r.secondRun >= 0 && r.pos >= r.secondRun {
		return false
	}
	_, _, st := r.readRecord(r.pos)
	return st != recIncomplete && st != recIOError
}
