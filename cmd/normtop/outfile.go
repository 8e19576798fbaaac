package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// checkOut refuses an --out that would replace one of the command's inputs
// (the same file by os.SameFile, so a symlink or hard link to it counts) or
// that names a directory, before anything is read or written.
func checkOut(out, hint string, inputs ...string) error {
	ofi, err := os.Stat(out)
	if err != nil {
		return nil // a new file cannot be an input; other errors are the create's to report
	}
	if ofi.IsDir() {
		return usageErrorf(hint, "--out %s is a directory; give a file name", out)
	}
	for _, in := range inputs {
		if ifi, err := os.Stat(in); err == nil && os.SameFile(ifi, ofi) {
			return usageErrorf(hint, "--out %s is the same file as the run file %s; writing there would destroy the recording", out, in)
		}
	}
	return nil
}

// writeFileAtomic writes --out through a temporary file next to path and
// renames it, so that a failed export or report never leaves a file that
// looks complete. An error from write is returned as it is.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	tmp, err := createBeside(path)
	if err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err // the temporary name would only confuse
		}
		return fmt.Errorf("--out %s: %w", path, err)
	}
	return nil
}

// createBeside creates a new, empty file next to path for writing it in
// full and renaming it over path. Unlike os.CreateTemp (mode 0600) it asks
// for 0666, so the umask decides the mode as it would for a shell
// redirection (0644 under umask 022).
func createBeside(path string) (*os.File, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for try := 0; ; try++ {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64()%1e10, 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the temporary name would only confuse
			}
			return nil, fmt.Errorf("cannot create it: %w", err)
		}
		return f, nil
	}
}
