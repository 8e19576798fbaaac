package record

import (
	"bytes"
	"io"
	"testing"
)

// exportFile opens the run file at path and returns what export writes of
// it (ExportCSV, ExportJSONL, ExportMarkdown), failing the test on any error.
func exportFile(t testing.TB, path string, export func(io.Writer, *Reader) error) []byte {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := export(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
