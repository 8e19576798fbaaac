package record

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/normtop/normtop/probes"
)

// fuzzCodec is the registry FuzzFrameDecode decodes against.
func fuzzCodec() *codec { return newCodec(newRegistry(testMeta(2, 3))) }

// FuzzFrameDecode feeds arbitrary payloads to the frame decoder, which
// FuzzReader rarely reaches (checksums reject almost every mutation). The
// decoder must not panic or over-allocate, and whatever it accepts must
// survive an encode/decode round trip bit-exactly. The other payload
// parsers (registry, index, stats, end) get the same bytes and must not
// panic either.
func FuzzFrameDecode(f *testing.F) {
	for _, p := range frameSeeds() {
		f.Add(p)
	}
	meta := testMeta(2, 3)
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeRegistry(data, meta)
		decodeIndex(data, 1<<40)
		mergeStats(data, len(newRegistry(meta).series), map[int]seriesStat{})
		if e, ok := decodeEnd(data, 2); ok {
			for v := range e.Diverged {
				if v < 0 || v >= 2 {
					t.Fatalf("end record names variant %d", v)
				}
			}
		}
		fr, err := fuzzCodec().decode(data)
		if err != nil {
			return
		}
		if fr.Variant < 0 || fr.Variant >= 2 || len(fr.Layers) > 3 {
			t.Fatalf("decoded frame outside the run's shape: variant %d, %d layers", fr.Variant, len(fr.Layers))
		}
		p, _ := fuzzCodec().encode(nil, &fr, true)
		again, err := fuzzCodec().decode(p)
		if err != nil {
			t.Fatalf("re-encoded frame does not decode: %v", err)
		}
		if !sameFrame(fr, again) {
			t.Fatalf("round trip differs:\n%+v\n%+v", fr, again)
		}
	})
}

// frameSeeds encodes a few random frames as keyframes.
func frameSeeds() [][]byte {
	meta := testMeta(2, 3)
	rng := rand.New(rand.NewPCG(21, 21))
	var out [][]byte
	for i := 0; i < 4; i++ {
		fr := randomFrame(rng, meta, i+1)
		p, _ := fuzzCodec().encode(nil, &fr, true)
		out = append(out, p)
	}
	// A frame with the layers' input histograms after its batch shape.
	fr := randomFrame(rng, meta, 5)
	fr.Batch = probes.BatchShape{Rows: 4, Width: 3, Tokens: 12}
	fr.Hists = testHists(3, 2)
	p, _ := fuzzCodec().encode(nil, &fr, true)
	return append(out, p)
}

// TestWriteFrameFuzzCorpus regenerates testdata/fuzz/FuzzFrameDecode when
// NORMTOP_WRITE_CORPUS=1.
func TestWriteFrameFuzzCorpus(t *testing.T) {
	writeFuzzCorpus(t, "FuzzFrameDecode", frameSeeds(), func(i int) string { return fmt.Sprintf("frame-%d", i) })
}
