package record

import (
	"fmt"
	"io"
	"testing"
)

// FuzzStream feeds arbitrary bytes to the stream reader (docs/formats.md): Open,
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
		r := fuzzOpen(t, dir, "s%d.jsonl", &n, data)
		if r == nil {
			return
		}
		fuzzFrames(t, r, len(data), true)
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
		twoLayerHead + line("ln", 1, `,"batch":{"rows":412,"width":5,"tokens":1802}`) + line("bn", 1, `,"batch":{"rows":32,"width":1,"tokens":null}`) +
			line("ln", 2, `,"batch":{"rows":2,"width":3}`) + line("bn", 2, `,"batch":null`),
		twoLayerHead + line("ln", 1, `,"batch":{"rows":-1,"width":5,"tokens":3}`) + line("ln", 2, `,"batch":{"rows":4,"width":2.5}`) +
			line("ln", 3, `,"batch":{"rows":2,"width":3,"tokens":7}`) + line("ln", 4, `,"batch":"412x5"`),
		// Input histograms: good ones (a NaN mean, an unknown layer), then each kind of refusal.
		histHead + line("ln", 1, `,"hist":{"a":{"mean":0.5,"std":2,"under":1,"counts":[3,40,50,2],"over":0,"nan":4},"b":{"mean":null,"std":null,"counts":[0,0,0,0],"nan":9},"zz":{}}`) +
			line("bn", 1, `,"hist":null`) + line("ln", 2, `,"hist":{"a":{"mean":0,"std":1,"counts":[1,2,3]}}`) +
			line("ln", 3, `,"hist":{"a":{"mean":0,"std":1,"counts":[1,-2,3.5,null]}}`) + line("ln", 4, `,"hist":{"b":{"mean":"+Inf","std":-1,"counts":[1,2,3,4,5]}}`) +
			line("ln", 5, `,"hist":{"b":{"mean":0,"std":1,"under":9007199254740993,"counts":[1,2,3,4]}}`) + line("ln", 6, `,"hist":[1]`),
		twoLayerHead + line("ln", 1, `,"hist":{"a":{"mean":0,"std":1,"counts":[1,2,3,4]}}`),
		`{"normtop_stream":1,"meta":{"Variants":[{"Name":"a"}],"Layers":["x"],"Histogram":{"Bins":1025,"Lo":-6,"Hi":6,"Unit":"std"}}}` + "\n",
	}
}

// TestWriteStreamFuzzCorpus regenerates testdata/fuzz/FuzzStream when
// NORMTOP_WRITE_CORPUS=1.
func TestWriteStreamFuzzCorpus(t *testing.T) {
	var seeds [][]byte
	for _, s := range streamSeeds() {
		seeds = append(seeds, []byte(s))
	}
	writeFuzzCorpus(t, "FuzzStream", seeds, func(i int) string { return fmt.Sprintf("stream-%d", i) })
}
