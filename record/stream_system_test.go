package record

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStreamSystem: a frame line's "system" object (python/normtop's
// system=True) reaches the Frame; a line without it leaves System nil.
func TestStreamSystem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	body := `{"normtop_stream":1,"meta":{"RunID":"r","Model":"pytorch:Net","Variants":[{"Name":"Net","Spec":"Net"}],"Layers":["ln"]}}
{"variant":"Net","step":1,"train_loss":1}
{"variant":"Net","step":2,"train_loss":1,"system":{"wall_s":0.25,"rss_bytes":1048576,"cuda_max_bytes":null}}
{"end":{"status":"completed"}}
`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f1, err := r.Next()
	if err != nil || f1.System != nil {
		t.Fatalf("step 1: %v, System %+v; want none", err, f1.System)
	}
	f2, err := r.Next()
	if err != nil || f2.System == nil || f2.System.WallS != 0.25 || f2.System.RSSBytes != 1<<20 || f2.System.CUDAMaxBytes == f2.System.CUDAMaxBytes {
		t.Fatalf("step 2: %v, System %+v; want wall 0.25, rss 1 MiB, CUDA unknown (NaN)", err, f2.System)
	}
}
