package record

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// TestBatchShapeRoundTrip: a run file keeps each frame's batch shape, a
// frame without one reads back without one, and a writer refuses a shape
// that is not a batch.
func TestBatchShapeRoundTrip(t *testing.T) {
	meta := testMeta(2, 1)
	path := filepath.Join(t.TempDir(), "b.ntr")
	w, err := Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	shapes := []probes.BatchShape{{Rows: 412, Width: 5, Tokens: 1802}, {}, {Rows: 32, Width: 1, Tokens: 32}, {Rows: 1 << 40, Width: 3, Tokens: 1<<41 + 7}}
	for i, s := range shapes {
		for v := range 2 {
			f := probes.Frame{Variant: v, Step: i + 1, TrainLoss: 1, Batch: s}
			if err := w.Write(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	bad := probes.Frame{Step: 9, Batch: probes.BatchShape{Rows: 2, Width: 3, Tokens: 7}}
	if err := w.Write(bad); !errors.Is(err, errFrameInvalid) || !strings.Contains(err.Error(), "2×3 with 7 tokens") {
		t.Errorf("writing %+v: %v, want a refusal", bad.Batch, err)
	}
	if err := w.Close(End{Status: StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAllFrames(t, r)
	if len(got) != 2*len(shapes) {
		t.Fatalf("%d frames", len(got))
	}
	for i, f := range got {
		if want := shapes[i/2]; f.Batch != want {
			t.Errorf("frame %d (step %d): batch %+v, want %+v", i, f.Step, f.Batch, want)
		}
	}
}

// TestBatchTailIsInvisibleToOlderReaders: the batch shape follows the
// frame's bit part, so a decoder that does not know flagBatch (an older
// normtop) reads every other field of the frame as before.
func TestBatchTailIsInvisibleToOlderReaders(t *testing.T) {
	meta := testMeta(2, 3)
	f := randomFrame(rand.New(rand.NewPCG(3, 3)), meta, 7)
	f.Batch = probes.BatchShape{Rows: 395, Width: 2, Tokens: 790}
	p, _ := fuzzCodec().encode(nil, &f, true)
	if p[0]&flagBatch == 0 {
		t.Fatal("flag not set")
	}
	old := bytes.Clone(p)
	old[0] &^= flagBatch
	got, err := fuzzCodec().decode(old)
	if err != nil {
		t.Fatal(err)
	}
	want := f
	want.Batch = probes.BatchShape{}
	if !sameFrame(got, want) {
		t.Fatalf("without the flag:\n got %+v\nwant %+v", got, want)
	}
	// And a tail that is cut short, or holds no batch, is damage.
	for _, cut := range []int{1, 2, 3} {
		if _, err := fuzzCodec().decode(p[:len(p)-cut]); err == nil {
			t.Errorf("tail cut by %d bytes decodes", cut)
		}
	}
}

// TestStreamBatchLines: a frame line's "batch" key, table-driven: good
// values reach the Frame; a negative, fractional, non-numeric value or
// more tokens than positions refuses the line as damage with its reason,
// and reading goes on.
func TestStreamBatchLines(t *testing.T) {
	for _, tc := range []struct {
		name, batch string
		want        probes.BatchShape
		damage      string // "" for a good line
	}{
		{"absent", ``, probes.BatchShape{}, ""},
		{"null", `,"batch":null`, probes.BatchShape{}, ""},
		{"whole", `,"batch":{"rows":412,"width":5,"tokens":1802}`, probes.BatchShape{Rows: 412, Width: 5, Tokens: 1802}, ""},
		{"image", `,"batch":{"rows":32,"width":1,"tokens":32}`, probes.BatchShape{Rows: 32, Width: 1, Tokens: 32}, ""},
		{"a key unknown", `,"batch":{"rows":8,"width":null,"tokens":40}`, probes.BatchShape{Rows: 8, Tokens: 40}, ""},
		{"a key left out", `,"batch":{"rows":8,"width":6}`, probes.BatchShape{Rows: 8, Width: 6}, ""},
		{"negative", `,"batch":{"rows":-1,"width":5,"tokens":3}`, probes.BatchShape{}, "batch rows -1: not a count"},
		{"fraction", `,"batch":{"rows":4,"width":2.5,"tokens":3}`, probes.BatchShape{}, "batch width 2.5: not a count"},
		{"exponent", `,"batch":{"rows":4,"width":2,"tokens":1e3}`, probes.BatchShape{}, "batch tokens 1e3: not a count"},
		{"string", `,"batch":{"rows":"4","width":2,"tokens":3}`, probes.BatchShape{}, `batch rows "4": not a count`},
		{"too large", `,"batch":{"rows":99999999999999999999,"width":2,"tokens":3}`, probes.BatchShape{}, "batch rows 99999999999999999999: too large"},
		{"more tokens than positions", `,"batch":{"rows":2,"width":3,"tokens":7}`, probes.BatchShape{}, "batch has 7 tokens, more than its 2 rows × 3 width"},
		{"not an object", `,"batch":[2,3,4]`, probes.BatchShape{}, `"batch" is not an object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := twoLayerHead + line("ln", 1, tc.batch) + line("ln", 2, "")
			r, err := Open(writeStream(t, []byte(b)))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			fs := readAllFrames(t, r)
			d := r.Damage()
			if tc.damage == "" {
				if len(fs) != 2 || len(d) != 0 || fs[0].Batch != tc.want || fs[1].Batch.Known() {
					t.Fatalf("frames %+v, damage %v; want batch %+v then none", fs, d, tc.want)
				}
				return
			}
			if len(fs) != 1 || fs[0].Step != 2 || len(d) != 1 || !strings.Contains(d[0].Reason, tc.damage) {
				t.Fatalf("frames %+v, damage %v; want the line refused with %q", fs, d, tc.damage)
			}
		})
	}
}

// TestExportBatch: csv writes the three batch_* rows of a frame that has a
// shape and none for one without; jsonl writes the stream's "batch" key,
// which reads back as the same shape (an export is a stream).
func TestExportBatch(t *testing.T) {
	meta := testMeta(1, 1)
	frames := []probes.Frame{
		{Step: 1, TrainLoss: 2, Batch: probes.BatchShape{Rows: 395, Width: 2, Tokens: 790}},
		{Step: 2, TrainLoss: 2},
	}
	path := writeFramesFile(t, meta, frames)
	csv := string(exportFile(t, path, ExportCSV))
	for _, want := range []string{",1,0,,batch_rows,395,\n", ",1,0,,batch_width,2,\n", ",1,0,,batch_tokens,790,\n"} {
		if !strings.Contains(csv, want) {
			t.Errorf("csv lacks %q:\n%s", want, csv)
		}
	}
	if strings.Contains(csv, ",2,0,,batch_") {
		t.Errorf("csv has batch rows for step 2, which has no shape:\n%s", csv)
	}
	jsonl := exportFile(t, path, ExportJSONL)
	if !bytes.Contains(jsonl, []byte(`"batch":{"rows":395,"width":2,"tokens":790}`)) {
		t.Errorf("jsonl lacks the batch key:\n%s", jsonl)
	}
	if n := bytes.Count(jsonl, []byte(`"batch"`)); n != 1 {
		t.Errorf("jsonl has %d batch keys, want 1:\n%s", n, jsonl)
	}
	stream := append(streamHeaderWith(t, meta, map[string]any{"alerts": "written"}), jsonl...)
	r, err := Open(writeStream(t, stream))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAllFrames(t, r)
	if len(got) != 2 || got[0].Batch != frames[0].Batch || got[1].Batch.Known() {
		t.Fatalf("the export read as a stream: %+v", got)
	}
}

// writeFramesFile writes frames to a closed run file and returns its path.
func writeFramesFile(t testing.TB, meta probes.RunMeta, frames []probes.Frame) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.ntr")
	w, err := Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(End{Status: StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExportMarkdownBatches: the Markdown summary says what the batches
// were (once when every variant saw the same ones), and nothing of them for
// a run that recorded none.
func TestExportMarkdownBatches(t *testing.T) {
	meta := testMeta(2, 1)
	shape := func(s int) probes.BatchShape {
		if s%50 == 0 {
			return probes.BatchShape{Rows: 300, Width: 2, Tokens: 600}
		}
		return probes.BatchShape{Rows: 60, Width: 30, Tokens: 1600 + s}
	}
	frames := func(batch func(v, s int) probes.BatchShape) []probes.Frame {
		var out []probes.Frame
		for s := 1; s <= 200; s++ {
			for v := range 2 {
				out = append(out, probes.Frame{Variant: v, Step: s, TrainLoss: 1, Batch: batch(v, s)})
			}
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		batch func(v, s int) probes.BatchShape
		want  string
	}{
		{"alike", func(_, s int) probes.BatchShape { return shape(s) },
			"\nBatches (rows × width positions, real tokens), over the steps that recorded them: every variant alike: 200 steps, rows 60–300, width 2–30, tokens 600–1,799; the narrowest 1%: width ≤ 2 (4 batches).\n"},
		{"one recorded", func(v, s int) probes.BatchShape {
			if v == 1 {
				return probes.BatchShape{}
			}
			return shape(s)
		}, ": layernorm:eps=1e-05: 200 steps, rows 60–300, width 2–30, tokens 600–1,799; the narrowest 1%: width ≤ 2 (4 batches); powernorm:eps=1e-05: not recorded.\n"},
		{"none", func(int, int) probes.BatchShape { return probes.BatchShape{} }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := string(exportFile(t, writeFramesFile(t, meta, frames(tc.batch)), ExportMarkdown))
			if tc.want == "" {
				if strings.Contains(md, "Batches") {
					t.Errorf("a run without batch shapes:\n%s", md)
				}
				return
			}
			if !strings.HasSuffix(md, tc.want) {
				t.Errorf("markdown ends\n%s\nwant the suffix %q", md, tc.want)
			}
		})
	}
}
