package report

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReport: no bytes make Read or the report panic; a file that reads
// gives a report in every format. The seed corpus (testdata/fuzz/FuzzReport)
// holds a small valid run file; mutations damage its header, index, frames
// and end record.
func FuzzReport(f *testing.F) {
	dir := f.TempDir()
	good, err := os.ReadFile(tinyRun("transformer", "x").write(f, dir, "seed.ntr"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.ntr")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, parts := range []int{1, 3} {
			run, err := readParts(path, parts)
			if err != nil {
				continue
			}
			r, err := New([]*Run{run})
			if err != nil {
				t.Fatalf("one run file must always be reportable: %v", err)
			}
			r.WriteText(discard{})
			r.WriteMarkdown(discard{})
			if err := r.WriteJSON(discard{}); err != nil {
				t.Fatalf("json: %v", err)
			}
		}
	})
}
