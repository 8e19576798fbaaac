package record

import "time"

// State reports whether the run has ended (Complete), is still being
// written (Writing: the writer holds its lock on the file; on systems
// without open-file-description locks, the file changed in the last 5 s), or
// ended without an end record (Unterminated). Call it after Next returned
// io.EOF.
func (r *Reader) State() State {
	if r.js != nil {
		return r.streamState()
	}
	return r.fileState()
}

// fileState is State for this file alone.
func (r *Reader) fileState() State {
	if r.end != nil {
		return Complete
	}
	if locked, known := writerLocked(r.f); known {
		if locked {
			r.sawLock = true
			return Writing
		}
		// A stream's writer need not lock (docs/formats.md: without locks,
		// "writing" means "modified in the last 5 s"). A lock seen once
		// and now gone means its writer died; a stream never seen locked
		// falls through to the time rule.
		if r.js == nil || r.sawLock {
			return Unterminated
		}
	}
	if r.js != nil && writerGone(r.js.writerPID, r.js.writerHost) {
		return Unterminated // the header's writer process no longer exists on this host
	}
	if st, err := r.f.Stat(); err == nil && time.Since(st.ModTime()) < 5*time.Second {
		return Writing
	}
	return Unterminated
}

// PathLost says why the path given to Open no longer names the file being
// read ("" while it does): deleted, moved away, or another file put in its
// place. The Reader keeps reading the file it opened (its writer, if alive,
// still appends there), so a follower says this rather than going quiet.
func (r *Reader) PathLost() string { return pathLost(r.path, r.f) }
