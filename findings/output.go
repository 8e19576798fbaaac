package findings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// writeOwn writes a report file atomically (a temporary file renamed over
// it). An existing file that is not normtop's own output is left alone: an
// error names it.
func writeOwn(path string, write func(io.Writer) error) error {
	if err := checkOwn(path); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

func checkOwn(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s exists and is not a regular file: not replaced", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case n == 0, bytes.HasPrefix(head, []byte("normtop ")), bytes.HasPrefix(head, []byte("# normtop ")):
		return nil
	case bytes.HasPrefix(head, []byte("{")) && bytes.Contains(readAll(path), []byte(`"findings"`)):
		return nil // the JSON reports
	}
	return fmt.Errorf("%s exists and is not a normtop report: not replaced (choose another --out)", path)
}

func readAll(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}
