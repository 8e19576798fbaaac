package record

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// histLayout is the tests' bins: 4 over [-6σ, 6σ).
var histLayout = probes.HistLayout{Bins: 4, Lo: -6, Hi: 6, Unit: probes.HistUnitStd}

// testHists is one histogram per layer in histLayout, layers ascending,
// one with no finite entry (NaN mean and σ) and one with large counts.
func testHists(layers int, seed uint64) []probes.Histogram {
	rng := rand.New(rand.NewPCG(seed, seed))
	hs := make([]probes.Histogram, layers)
	for l := range hs {
		hs[l] = probes.Histogram{Layer: l, Mean: rng.NormFloat64(), Std: rng.Float64() * 3,
			Under: rng.IntN(3), Counts: []int{rng.IntN(100), rng.IntN(5000), rng.IntN(5000), rng.IntN(100)}, Over: rng.IntN(3), NaN: 0}
	}
	if layers > 1 {
		hs[1] = probes.Histogram{Layer: 1, Mean: math.NaN(), Std: math.NaN(), Under: 2, Counts: []int{0, 0, 0, 0}, Over: 1, NaN: 7}
	}
	if layers > 2 {
		hs[2].Counts[1] = probes.MaxHistCount
	}
	return hs
}

func histMeta(variants, layers int) probes.RunMeta {
	m := testMeta(variants, layers)
	l := histLayout
	m.Histogram = &l
	return m
}

// TestHistRoundTrip: a run file keeps each frame's histograms bit for bit
// (NaN mean and σ included) and the header's bins; frames without any read
// back without; the writer refuses histograms that do not fit the run.
func TestHistRoundTrip(t *testing.T) {
	meta := histMeta(2, 3)
	var frames []probes.Frame
	for s := 1; s <= 6; s++ {
		for v := range 2 {
			f := probes.Frame{Variant: v, Step: s, TrainLoss: 1}
			if s%2 == 0 {
				f.Hists = testHists(3, uint64(s*2+v))
				f.Batch = probes.BatchShape{Rows: 8, Width: 4, Tokens: 30}
			}
			if s == 3 {
				f.Hists = testHists(3, 99)[2:] // only the last layer
			}
			frames = append(frames, f)
		}
	}
	path := writeFramesFile(t, meta, frames)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if h := r.Meta().Histogram; h == nil || *h != histLayout {
		t.Fatalf("header's bins %+v, want %+v", h, histLayout)
	}
	got := readAllFrames(t, r)
	if len(got) != len(frames) {
		t.Fatalf("%d frames, want %d", len(got), len(frames))
	}
	for i := range got {
		if !sameFrame(got[i], frames[i]) {
			t.Errorf("frame %d:\n got %+v\nwant %+v", i, got[i], frames[i])
		}
	}
}

// TestHistWriterRefuses: what does not fit the run is a user error
// (errFrameInvalid) naming the fault, and nothing is written for it.
func TestHistWriterRefuses(t *testing.T) {
	good := func() []probes.Histogram { return testHists(2, 1) }
	for _, tc := range []struct {
		name string
		meta probes.RunMeta
		hs   func() []probes.Histogram
		want string
	}{
		{"no bins declared", testMeta(1, 2), good, "declares no histogram bins"},
		{"wrong bin count", histMeta(1, 2), func() []probes.Histogram { h := good(); h[0].Counts = h[0].Counts[:3]; return h }, "has 3 counts; the run's histograms have 4 bins"},
		{"negative count", histMeta(1, 2), func() []probes.Histogram { h := good(); h[0].Counts[2] = -1; return h }, "bin 2 has count -1"},
		{"negative under", histMeta(1, 2), func() []probes.Histogram { h := good(); h[0].Under = -4; return h }, "under -4"},
		{"infinite mean", histMeta(1, 2), func() []probes.Histogram { h := good(); h[0].Mean = math.Inf(1); return h }, "infinite"},
		{"negative σ", histMeta(1, 2), func() []probes.Histogram { h := good(); h[0].Std = -1; return h }, "σ -1 is negative"},
		{"layer out of range", histMeta(1, 2), func() []probes.Histogram { h := good(); h[1].Layer = 2; return h }, "layer 2; the run has 2"},
		{"two of one layer", histMeta(1, 2), func() []probes.Histogram { h := good(); h[1].Layer = 0; return h }, "one per layer, ascending"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Create(filepath.Join(t.TempDir(), "h.ntr"), tc.meta)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close(End{Status: StatusCompleted})
			err = w.Write(probes.Frame{Step: 1, Hists: tc.hs()})
			if !errors.Is(err, errFrameInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal with %q", err, tc.want)
			}
		})
	}
	for _, l := range []probes.HistLayout{{Bins: 1, Lo: -6, Hi: 6, Unit: "std"}, {Bins: 4, Lo: 6, Hi: -6, Unit: "std"},
		{Bins: 4, Lo: math.Inf(-1), Hi: 6, Unit: "std"}, {Bins: 4, Lo: -6, Hi: 6, Unit: "abs"}, {Bins: probes.MaxHistBins + 1, Lo: -6, Hi: 6, Unit: "std"}} {
		m := testMeta(1, 1)
		m.Histogram = &l
		if _, err := Create(filepath.Join(t.TempDir(), "h.ntr"), m); err == nil || !strings.Contains(err.Error(), "histogram") {
			t.Errorf("Create with bins %+v: %v, want a refusal", l, err)
		}
	}
}

// TestHistTailIsInvisibleToOlderReaders: the histograms are the frame's
// last bytes, so a decoder that does not know flagHist (an older normtop)
// reads every other field, the batch shape included, as before; a tail cut
// short is damage.
func TestHistTailIsInvisibleToOlderReaders(t *testing.T) {
	meta := testMeta(2, 3)
	f := randomFrame(rand.New(rand.NewPCG(4, 4)), meta, 7)
	f.Batch = probes.BatchShape{Rows: 395, Width: 2, Tokens: 790}
	f.Hists = testHists(3, 5)
	p, _ := fuzzCodec().encode(nil, &f, true)
	if p[0]&flagHist == 0 {
		t.Fatal("flag not set")
	}
	old := bytes.Clone(p)
	old[0] &^= flagHist
	got, err := fuzzCodec().decode(old)
	if err != nil {
		t.Fatal(err)
	}
	want := f
	want.Hists = nil
	if !sameFrame(got, want) {
		t.Fatalf("without the flag:\n got %+v\nwant %+v", got, want)
	}
	for _, cut := range []int{1, 5, 20} {
		if _, err := fuzzCodec().decode(p[:len(p)-cut]); err == nil {
			t.Errorf("tail cut by %d bytes decodes", cut)
		}
	}
}

// histHead is twoLayerHead with 4 bins declared.
const histHead = `{"normtop_stream":1,"meta":{"RunID":"r","Model":"pytorch:Net","Metric":"accuracy","Variants":[{"Name":"ln","Spec":"ln"},{"Name":"bn","Spec":"bn"}],"Layers":["a","b"],"Histogram":{"Bins":4,"Lo":-6,"Hi":6,"Unit":"std"}}}` + "\n"

// TestStreamHistLines: a frame line's "hist" key, table-driven: good
// values reach the Frame, by layer; a wrong bin count, a negative or
// fractional count, a non-finite mean or σ, or a "hist" the header did
// not declare bins for refuses the line as damage with its reason, and
// reading goes on.
func TestStreamHistLines(t *testing.T) {
	h := func(body string) string { return `,"hist":{"b":` + body + `}` }
	const ok = `{"mean":0.5,"std":2,"under":1,"counts":[3,40,50,2],"over":0,"nan":4}`
	for _, tc := range []struct {
		name, head, hist string
		want             []probes.Histogram
		damage           string // "" for a good line
	}{
		{"absent", histHead, ``, nil, ""},
		{"null", histHead, `,"hist":null`, nil, ""},
		{"whole", histHead, h(ok), []probes.Histogram{{Layer: 1, Mean: 0.5, Std: 2, Under: 1, Counts: []int{3, 40, 50, 2}, NaN: 4}}, ""},
		{"two layers, by index", histHead, `,"hist":{"b":` + ok + `,"a":{"mean":null,"std":null,"counts":[0,0,0,0],"nan":9}}`,
			[]probes.Histogram{{Layer: 0, Mean: math.NaN(), Std: math.NaN(), Counts: []int{0, 0, 0, 0}, NaN: 9}, {Layer: 1, Mean: 0.5, Std: 2, Under: 1, Counts: []int{3, 40, 50, 2}, NaN: 4}}, ""},
		{"unknown layer dropped", histHead, `,"hist":{"zz":` + ok + `}`, nil, ""},
		{"too few bins", histHead, h(`{"mean":0,"std":1,"counts":[1,2,3]}`), nil, `hist of layer "b": "counts" has 3 counts; the header's histograms have 4 bins`},
		{"too many bins", histHead, h(`{"mean":0,"std":1,"counts":[1,2,3,4,5]}`), nil, `"counts" has more than 4 counts`},
		{"negative count", histHead, h(`{"mean":0,"std":1,"counts":[1,-2,3,4]}`), nil, "bin 1 count -2: not a count"},
		{"fractional count", histHead, h(`{"mean":0,"std":1,"counts":[1,2,3.5,4]}`), nil, "bin 2 count 3.5: not a count"},
		{"null count", histHead, h(`{"mean":0,"std":1,"counts":[1,2,null,4]}`), nil, "bin 2 count null: not a count"},
		{"negative under", histHead, h(`{"mean":0,"std":1,"under":-1,"counts":[1,2,3,4]}`), nil, "under -1: not a count"},
		{"count over 2^53", histHead, h(`{"mean":0,"std":1,"over":9007199254740993,"counts":[1,2,3,4]}`), nil, "over 9007199254740993: over 2^53"},
		{"infinite mean", histHead, h(`{"mean":"+Inf","std":1,"counts":[1,2,3,4]}`), nil, `mean "+Inf": not a finite number`},
		{"NaN std string", histHead, h(`{"mean":0,"std":"NaN","counts":[1,2,3,4]}`), nil, `std "NaN": not a finite number`},
		{"overflowing mean", histHead, h(`{"mean":1e999,"std":1,"counts":[1,2,3,4]}`), nil, "mean 1e999: not a finite number"},
		{"negative std", histHead, h(`{"mean":0,"std":-0.5,"counts":[1,2,3,4]}`), nil, "std -0.5 is negative"},
		{"counts not an array", histHead, h(`{"mean":0,"std":1,"counts":{"0":1}}`), nil, `"counts" is not an array of 4 counts`},
		{"not an object", histHead, `,"hist":[1,2]`, nil, `"hist" is not an object`},
		{"no bins declared", twoLayerHead, h(ok), nil, `"hist" but the header declares no histogram bins`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.head + line("ln", 1, tc.hist) + line("ln", 2, "")
			r, err := Open(writeStream(t, []byte(b)))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			fs := readAllFrames(t, r)
			d := r.Damage()
			if tc.damage == "" {
				if len(fs) != 2 || len(d) != 0 || fs[1].Hists != nil {
					t.Fatalf("frames %+v, damage %v", fs, d)
				}
				if !sameFrame(probes.Frame{Hists: fs[0].Hists}, probes.Frame{Hists: tc.want}) {
					t.Fatalf("hists %+v, want %+v", fs[0].Hists, tc.want)
				}
				return
			}
			if len(fs) != 1 || fs[0].Step != 2 || len(d) != 1 || !strings.Contains(d[0].Reason, tc.damage) {
				t.Fatalf("frames %+v, damage %v; want the line refused with %q", fs, d, tc.damage)
			}
		})
	}
}

// TestStreamHistHeader: bins a header declares that no reader accepts
// refuse the stream at Open with one line.
func TestStreamHistHeader(t *testing.T) {
	for _, bins := range []string{`{"Bins":0,"Lo":-6,"Hi":6,"Unit":"std"}`, `{"Bins":4,"Lo":1,"Hi":1,"Unit":"std"}`, `{"Bins":4,"Lo":-6,"Hi":6,"Unit":"volts"}`} {
		head := `{"normtop_stream":1,"meta":{"Variants":[{"Name":"a"}],"Layers":["x"],"Histogram":` + bins + `}}` + "\n"
		_, err := Open(writeStream(t, []byte(head)))
		if err == nil || !strings.Contains(err.Error(), "meta.Histogram") || strings.Contains(err.Error(), "\n") {
			t.Errorf("header with %s: %v, want one line naming meta.Histogram", bins, err)
		}
	}
}

// TestExportHist: jsonl writes the stream's "hist" key, which reads back
// as the same histograms (an export with a header is a stream).
func TestExportHist(t *testing.T) {
	meta := histMeta(1, 3)
	frames := []probes.Frame{{Step: 1, TrainLoss: 2, Hists: testHists(3, 8)}, {Step: 2, TrainLoss: 2}}
	path := writeFramesFile(t, meta, frames)
	jsonl := exportFile(t, path, ExportJSONL)
	if n := bytes.Count(jsonl, []byte(`"hist"`)); n != 1 {
		t.Errorf("jsonl has %d hist keys, want 1:\n%s", n, jsonl)
	}
	if !bytes.Contains(jsonl, []byte(`"block1.ln":{"mean":null,"std":null,"under":2,"counts":[0,0,0,0],"over":1,"nan":7}`)) {
		t.Errorf("jsonl lacks layer 1's histogram:\n%s", jsonl)
	}
	stream := append(streamHeaderWith(t, meta, map[string]any{"alerts": "written"}), jsonl...)
	r, err := Open(writeStream(t, stream))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAllFrames(t, r)
	if len(got) != 2 || !sameFrame(probes.Frame{Hists: got[0].Hists}, probes.Frame{Hists: frames[0].Hists}) || got[1].Hists != nil {
		t.Fatalf("the export read as a stream: %+v", got)
	}
}

// TestStreamRankHists: another rank's histograms reach the merged run
// under rank 0's layer numbers (its header lists the layers in another
// order); a rank whose bins are not rank 0's has its histograms dropped
// (they would not fit the run's layout), its other values kept.
func TestStreamRankHists(t *testing.T) {
	dir := t.TempDir()
	bins := `"Histogram":{"Bins":4,"Lo":-6,"Hi":6,"Unit":"std"}`
	head := `{"normtop_stream":1,"meta":{"RunID":"r","Variants":[{"Name":"ln"}],"Layers":["a","b"],` + bins + `},"streams":["run.rank1.jsonl","run.rank2.jsonl"]}` + "\n"
	h := func(layer string, c int) string {
		return `,"hist":{"` + layer + `":{"mean":0,"std":1,"counts":[1,` + itoa(c) + `,` + itoa(c) + `,1]}}`
	}
	files := map[string]string{
		"run.jsonl":       head + line("ln", 1, h("b", 10)) + `{"end":{"status":"completed"}}` + "\n",
		"run.rank1.jsonl": `{"normtop_stream":1,"meta":{"Variants":[{"Name":"ln"}],"Layers":["b","a"],` + bins + `}}` + "\n" + line("ln", 2, h("a", 20)) + `{"end":{"status":"completed"}}` + "\n",
		"run.rank2.jsonl": `{"normtop_stream":1,"meta":{"Variants":[{"Name":"ln"}],"Layers":["a","b"],"Histogram":{"Bins":2,"Lo":-6,"Hi":6,"Unit":"std"}}}` + "\n" +
			line("ln", 3, `,"layers":{"a":{"g_mu":7}},"hist":{"a":{"mean":0,"std":1,"counts":[5,5]}}`) + `{"end":{"status":"completed"}}` + "\n",
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(filepath.Join(dir, "run.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fs := readAllFrames(t, r)
	if len(fs) != 3 {
		t.Fatalf("%d frames, want 3", len(fs))
	}
	if hs := fs[0].Hists; len(hs) != 1 || hs[0].Layer != 1 || hs[0].Counts[1] != 10 {
		t.Errorf("rank 0's histograms %+v, want layer b's", hs)
	}
	if hs := fs[1].Hists; fs[1].Variant != 1 || len(hs) != 1 || hs[0].Layer != 0 || hs[0].Counts[1] != 20 {
		t.Errorf("rank 1's histograms %+v (variant %d), want layer a's under index 0", hs, fs[1].Variant)
	}
	if fs[2].Variant != 2 || fs[2].Hists != nil || fs[2].Layers[0][probes.GMu] != 7 {
		t.Errorf("rank 2 (other bins): variant %d, hists %+v, layers %+v; want no histograms, g_mu kept", fs[2].Variant, fs[2].Hists, fs[2].Layers)
	}
}
