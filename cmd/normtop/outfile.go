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
	"strings"

	"github.com/normtop/normtop/record"
)

// checkOut refuses an --out that would replace one of the command's inputs
// (the same file by os.SameFile, so a symlink or hard link to it counts),
// that names a directory, or that names a socket (which cannot be opened for
// writing), before anything is read or written. Unless force, it also
// refuses one that holds a recording (a run file or a stream, through any
// symlink such as runs/latest): --record promises that a run file is never
// overwritten, and an export must not break that promise by a typo.
func checkOut(out, hint string, force bool, inputs ...string) error {
	ofi, err := os.Stat(out)
	if err != nil {
		return nil // a new file cannot be an input; other errors are the create's to report
	}
	if ofi.IsDir() {
		return usageErrorf(hint, "--out %s is a directory; give a file name", out)
	}
	if ofi.Mode()&fs.ModeSocket != 0 {
		return usageErrorf(hint, "--out %s is a socket; give a file name, a FIFO or a device", out)
	}
	for _, in := range inputs {
		if ifi, err := os.Stat(in); err == nil && os.SameFile(ifi, ofi) {
			return usageErrorf(hint, "--out %s is the same file as the run file %s; writing there would destroy the recording", out, in)
		}
	}
	if kind := record.RecordingKind(out); kind != "" && !force {
		return usageErrorf(hint, "--out %s is a %s; writing there would destroy that recording (give another name, or --force to replace it)", out, kind)
	}
	return nil
}

// writeOut writes --out. A regular file (or a new name) is written through
// a temporary file in its directory and renamed over it, so that a failed
// export or report never leaves a file that looks complete; through a
// symlink the link's target is replaced and the link kept. Anything else at
// the path (a device such as /dev/null, a FIFO) is opened and written in
// place, as a shell redirection would, and never replaced: a rename over it
// would destroy the device node or the pipe another process waits on. An
// error from write is returned as it is.
func writeOut(path string, write func(io.Writer) error) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return writeInPlace(path, write)
	}
	target, inPlace, err := resolveLinks(path)
	if err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	if inPlace {
		return writeInPlace(path, write)
	}
	fi, err := os.Stat(target)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return writeInPlace(path, write)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--out %s: %w", path, err)
	}
	return writeAtomic(path, target, fi, write)
}

// resolveLinks follows path's symlinks (the last element's, repeatedly) to
// the name that is replaced: the final target, which may not exist yet (a
// dangling link creates it, as a shell redirection does). inPlace is set
// for a link into /proc or /dev/fd (/dev/stdout: an open file of this
// process, whose "target" may be no path at all, such as pipe:[123]): that
// is written in place.
func resolveLinks(path string) (target string, inPlace bool, err error) {
	for hops := 0; hops < 40; hops++ {
		if abs, err := filepath.Abs(path); err == nil && (strings.HasPrefix(abs, "/proc/") || strings.HasPrefix(abs, "/dev/fd/")) {
			return "", true, nil
		}
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, false, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", false, errors.New("too many levels of symbolic links")
}

// writeInPlace opens a non-regular file (a device, a FIFO) for writing
// without creating, truncating or replacing it.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("--out %s: %w", path, unwrapPath(err))
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--out %s: %w", path, unwrapPath(err))
	}
	return nil
}

// writeAtomic writes target (path after its symlinks; fi its FileInfo, nil
// when it does not exist yet) through a temporary file beside it. An
// existing file keeps its permission bits, as under a shell redirection.
// SIGINT, SIGTERM or SIGHUP while it writes remove the temporary file
// before the process exits.
func writeAtomic(path, target string, fi os.FileInfo, write func(io.Writer) error) error {
	guard := removeOnSignal(path)
	defer guard.release()
	tmp, err := guard.createBeside(target)
	if err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if fi != nil {
		if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
			tmp.Close()
			return fmt.Errorf("--out %s: %w", path, unwrapPath(err))
		}
	}
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--out %s: %w", path, unwrapPath(err))
	}
	if err := guard.rename(tmp.Name(), target); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err // the temporary name would only confuse
		}
		return fmt.Errorf("--out %s: %w", path, err)
	}
	return nil
}

// unwrapPath drops a PathError's operation and (temporary) file name.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
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
			return nil, fmt.Errorf("cannot create it: %w", unwrapPath(err))
		}
		return f, nil
	}
}
