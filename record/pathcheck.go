package record

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// pathLost says why path no longer names the open file f, or "" when it
// still does. The open descriptor keeps an unlinked or renamed-over file
// alive, so writes to it succeed while the name shows nothing or another
// file: `rm -rf runs` during a run, or `mv other.ntr run.ntr`. Both the
// file's link count (0 once every name is gone) and the path's identity
// (os.SameFile: device and inode) are checked, since either alone misses a
// case: a rename over the path leaves f a link elsewhere; an unlinked f
// whose name was recreated has a path that stats fine.
func pathLost(path string, f *os.File) string {
	fi, err := f.Stat()
	if err != nil {
		return "" // cannot tell; the write path reports I/O errors
	}
	if linkCount(fi) == 0 {
		if _, err := os.Stat(filepath.Dir(path)); err != nil {
			return "its directory was removed"
		}
		if _, err := os.Lstat(path); err == nil {
			return "another file was put in its place"
		}
		return "it was deleted"
	}
	pfi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "it was renamed or moved away"
	case err != nil:
		return "" // a permission change is not a loss
	case !os.SameFile(fi, pfi):
		return "another file was put in its place"
	}
	return ""
}

// pathCheckEvery is how often a Writer checks, while the run is written,
// that its path still names its file: one stat of the path and one fstat,
// on the flusher's goroutine (so at most every flushEvery). A variable so
// that tests can check at every tick.
var pathCheckEvery = time.Second

// OnPathLost sets what the Writer calls, once, when a check while the run
// is written finds that its path no longer names the file (why: pathLost's
// words). The Writer goes on writing to the file it holds open and, at
// Close, saves the recording as before (LostError); fn is how the caller
// says so at once rather than at the end of the run. fn is called on the
// Writer's flusher goroutine, never under its lock, so it may block
// (writing to a stderr pipe) without stalling Write.
func (w *Writer) OnPathLost(fn func(why string)) {
	w.mu.Lock()
	w.onPathLost = fn
	w.mu.Unlock()
}

// checkPath is the periodic path check (the flusher's, at now): every
// pathCheckEvery until the path is found lost, then never again (Close
// checks once more and saves the recording).
func (w *Writer) checkPath(now time.Time) {
	if w.pathLostSaid || now.Sub(w.pathCheckedAt) < pathCheckEvery {
		return
	}
	w.pathCheckedAt = now
	why := pathLost(w.path, w.f)
	if why == "" {
		return
	}
	w.pathLostSaid = true
	w.mu.Lock()
	fn := w.onPathLost
	w.mu.Unlock()
	if fn != nil {
		fn(why)
	}
}

// LostError is Close's error when the run file's path no longer names the
// file written (pathLost): the recording was copied from the still-open
// descriptor to Saved (empty when that failed too: SaveErr says why).
type LostError struct {
	Path    string
	Why     string
	Saved   string
	SaveErr error
}

func (e *LostError) Error() string {
	if e.Saved != "" {
		return fmt.Sprintf("run file %s is no longer there (%s) while the run was written; the recording was saved to %s", e.Path, e.Why, e.Saved)
	}
	return fmt.Sprintf("run file %s is no longer there (%s) while the run was written, and saving the recording elsewhere failed: %v", e.Path, e.Why, e.SaveErr)
}

// createRecovery creates the first free name beside path (or in the temporary
// directory when path's directory is gone) for a recovered run file:
// run.ntr → run.recovered.ntr, run.recovered-2.ntr, …
func createRecovery(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = os.TempDir()
	}
	base := filepath.Base(path)
	ext := filepath.Ext(base)
	if ext == "" {
		ext = ".ntr"
	}
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	var last error
	for i := 1; i <= 100; i++ {
		name := stem + ".recovered" + ext
		if i > 1 {
			name = fmt.Sprintf("%s.recovered-%d%s", stem, i, ext)
		}
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return f, nil
		}
		last = err
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return nil, last
}

// saveLost copies the n bytes written to f into a recovery file and
// returns the LostError that says where they went.
func saveLost(path, why string, f *os.File, n int64) *LostError {
	e := &LostError{Path: path, Why: why}
	out, err := createRecovery(path)
	if err != nil {
		e.SaveErr = err
		return e
	}
	_, err = io.Copy(out, io.NewSectionReader(f, 0, n))
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out.Name())
		e.SaveErr = err
		return e
	}
	e.Saved = out.Name()
	return e
}
