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

// FuzzStream feeds arbitrary bytes to the stream reader (STREAM.md): Open,
// Next, Seek, LastStep, End, State and the exports must not panic or loop
// forever; Open errors name the file; whatever is read keeps its variant
// and layers inside the header's.
func FuzzStream(f *testing.F) {
	for _, s := range streamSeeds() {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, data []byte) {
		n++
		path := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", n))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
		r, err := Open(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		defer r.Close()
		m := r.Meta()
		for i := 0; ; i++ {
			fr, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if i > len(data) {
				t.Fatal("more frames than bytes")
			}
			if fr.Variant < 0 || fr.Variant >= len(m.Variants) || (fr.Layers != nil && len(fr.Layers) != len(m.Layers)) {
				t.Fatalf("frame outside the header: variant %d of %d, %d layers of %d", fr.Variant, len(m.Variants), len(fr.Layers), len(m.Layers))
			}
		}
		r.End()
		r.State()
		r.Damage()
		r.LastStep()
		if err := r.Seek(2); err != nil {
			t.Fatal(err)
		}
		if err := ExportCSV(io.Discard, r); err != nil {
			t.Fatal(err)
		}
		r.Seek(0)
		ExportMarkdown(io.Discard, r)
	})
}

func streamSeeds() []string {
	return []string{
		twoLayerHead + line("ln", 1, `,"layers":{"a":{"g_mu":1,"dist_mu":null,"in_std":"+Inf"}}`) +
			`{"variant_index":1,"step":2,"eval":[{"split":"val","loss":1,"metric":0.5,"train_loss":null}],"spectrum":{"step":2,"sigma":[1,0.5],"eff_rank":1.8},"alerts":[{"kind":"outlier","step":2,"layer":"b","probe":"g_var","value":3,"threshold":1,"msg":"x"}]}` + "\n" +
			`{"end":{"status":"completed","diverged":{"1":2}}}` + "\n",
		twoLayerHead + line("bn", 3, "") + `{"variant":"ln","step":`,
		`{"normtop_stream":1,"meta":{"Variants":[{"Name":"a"}],"Layers":["x"]},"streams":["s.rank1.jsonl"]}` + "\n" + `{"step":1}` + "\n",
		"\n\n" + twoLayerHead + "{bad\n\n" + line("ln", -5, `,"status":"stopped","elapsed_s":1e300`),
		`{"variant":"ln","step":1}` + "\n",
		`{"normtop_stream":1,"alerts":"written","meta":{"Variants":[{"Name":"a"}],"Layers":["x"]}}` + "\n" +
			`{"step":1,"layers":{"x":{"in_std":1,"ada_frac":0.5}}}` + "\n" + `{"step":2,"layers":{"x":{"in_std":90}}}` + "\n",
	}
}

// TestWriteStreamFuzzCorpus regenerates testdata/fuzz/FuzzStream when
// NORMTOP_WRITE_CORPUS=1.
func TestWriteStreamFuzzCorpus(t *testing.T) {
	if os.Getenv("NORMTOP_WRITE_CORPUS") != "1" {
		t.Skip("set NORMTOP_WRITE_CORPUS=1 to regenerate the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzStream")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, s := range streamSeeds() {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("stream-%d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
