package record

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzOpen writes data to a new file in dir (pattern's name for the count
// *counter) and opens it. An Open error must name the file; fuzzOpen
// then returns nil. The file and the reader are closed and removed when t
// ends.
func fuzzOpen(t *testing.T, dir, pattern string, counter *int, data []byte) *Reader {
	*counter++
	path := filepath.Join(dir, fmt.Sprintf(pattern, *counter))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(path) })
	r, err := Open(path)
	if err != nil {
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("error %q does not name the file", err)
		}
		return nil
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// fuzzFrames reads r to its end. Every frame must lie inside the header's
// variants and layers: exactly its layers when exactLayers (a stream places
// layers by name), at most as many otherwise; and a reader that returns more
// frames than the file has bytes is looping.
func fuzzFrames(t *testing.T, r *Reader, size int, exactLayers bool) {
	m := r.Meta()
	for i := 0; ; i++ {
		fr, err := r.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if i > size {
			t.Fatal("more frames than bytes")
		}
		badLayers := len(fr.Layers) > len(m.Layers) || exactLayers && fr.Layers != nil && len(fr.Layers) != len(m.Layers)
		if fr.Variant < 0 || fr.Variant >= len(m.Variants) || badLayers {
			t.Fatalf("frame outside the header: variant %d of %d, %d layers of %d", fr.Variant, len(m.Variants), len(fr.Layers), len(m.Layers))
		}
	}
}

// writeFuzzCorpus regenerates testdata/fuzz/<target> from seeds, seed i
// named name(i), when NORMTOP_WRITE_CORPUS=1 (the files are committed; the
// test is otherwise skipped).
func writeFuzzCorpus(t *testing.T, target string, seeds [][]byte, name func(i int) string) {
	if os.Getenv("NORMTOP_WRITE_CORPUS") != "1" {
		t.Skip("set NORMTOP_WRITE_CORPUS=1 to regenerate the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, s := range seeds {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
		if err := os.WriteFile(filepath.Join(dir, name(i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
