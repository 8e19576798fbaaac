package findings

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/normtop/normtop/record"
)

// runsDir is where the run files go, under the output directory.
const runsDir = "runs"

// Path is the run file of r under dir: its name and a hash of its
// arguments, so that a run whose arguments change in the plan gets a new
// file and the old one is left as it is.
func (r Run) Path(dir string) string {
	h := sha256.Sum256([]byte(strings.Join(r.Args, "\x00")))
	return filepath.Join(dir, runsDir, r.Name+"-"+hex.EncodeToString(h[:4])+".ntr")
}

// fileState is what a run file on disk says about its run.
type fileState int

const (
	absent   fileState = iota
	complete           // an end record that says completed (or every variant diverged)
	partial            // anything else: interrupted, still open, damaged, not a run file
)

// stateOf reads the run file at path.
func stateOf(path string) (fileState, string) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return absent, ""
	}
	r, err := record.Open(path)
	if err != nil {
		return partial, err.Error()
	}
	defer r.Close()
	end, ok := r.End()
	switch {
	case !ok:
		return partial, "no end record (stopped or still being written)"
	case end.Status == record.StatusCompleted || end.Status == record.StatusDiverged:
		return complete, end.Status
	}
	return partial, end.Status
}

// keepAside renames an incomplete run file to a free name beside it
// (NAME.interrupted-K.ntr) and returns that name: it is trained again from
// scratch, and what the interrupted file recorded stays on disk.
func keepAside(path string) (string, error) {
	base := strings.TrimSuffix(path, ".ntr")
	for k := 1; ; k++ {
		aside := fmt.Sprintf("%s.interrupted-%d.ntr", base, k)
		if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
			// Link then remove: a name taken meanwhile fails the link
			// instead of being replaced.
			if err := os.Link(path, aside); err != nil {
				if errors.Is(err, fs.ErrExist) {
					continue
				}
				return "", err
			}
			return aside, os.Remove(path)
		}
	}
}

// StateLine says what the run file at path holds: "complete: PATH",
// "incomplete (why): PATH" or "not trained yet".
func StateLine(path string) string {
	switch st, why := stateOf(path); st {
	case complete:
		return "complete: " + path
	case partial:
		return "incomplete (" + why + "), trained again from scratch: " + path
	}
	return "not trained yet"
}
