package record

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestForgedHugeHeader: a header record of almost MaxRecordSize whose JSON
// is a list of empty strings (each 3 bytes in the file, 16 in memory) is
// rejected before it is decoded: opening it allocates little more than the
// record itself, not the hundreds of MB the decoded list would take.
func TestForgedHugeHeader(t *testing.T) {
	var js bytes.Buffer
	js.WriteString(`{"format_version":1,"meta":{"Layers":[""`)
	for js.Len() < MaxRecordSize-64 {
		js.WriteString(`,""`)
	}
	js.WriteString(`]}}`)
	b := appendPrelude(nil)
	b = appendRecord(b, recHeader, js.Bytes())
	path := filepath.Join(t.TempDir(), "forged.ntr")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := Open(path)
	runtime.ReadMemStats(&after)
	if r != nil {
		r.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "over the 1048576-byte limit") {
		t.Errorf("Open = %v, want a header-size error", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*MaxRecordSize+(4<<20) {
		t.Errorf("Open allocated %d MB for a %d MB header", alloc>>20, js.Len()>>20)
	}
}

// TestWriterRefusesHugeHeader: the writer never writes what its reader
// would reject.
func TestWriterRefusesHugeHeader(t *testing.T) {
	meta := testMeta(1, 1)
	meta.Config = map[string]string{"note": strings.Repeat("x", MaxHeaderSize)}
	path := tempRun(t)
	if w, err := Create(path, meta); err == nil || !strings.Contains(err.Error(), "header limit") {
		if w != nil {
			w.Close(End{Status: StatusCompleted})
		}
		t.Fatalf("Create = %v, want a header-limit error", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a refused run file was left behind: %v", err)
	}
}
