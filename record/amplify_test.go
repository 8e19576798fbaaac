package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/normtop/normtop/probes"
)

// forgeWide writes a run file whose header and registry name variants ×
// layers with every probe: valid framing, under the header-size limit, but
// possibly over MaxSeries (which Create refuses, so it is built by hand).
func forgeWide(t testing.TB, path string, variants, layers, np int) {
	meta := probes.RunMeta{RunID: "wide", Model: "mlp", Metric: "accuracy"}
	for v := 0; v < variants; v++ {
		meta.Variants = append(meta.Variants, probes.VariantMeta{Name: "v", Spec: "layernorm"})
	}
	for l := 0; l < layers; l++ {
		meta.Layers = append(meta.Layers, "l")
	}
	hdr, err := json.Marshal(headerJSON{FormatVersion: FormatVersion, Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	var e enc
	e.uvarint(uint64(variants))
	e.uvarint(uint64(layers))
	e.uvarint(uint64(np))
	for p := probes.Probe(0); p < probes.Probe(np); p++ {
		e.str(p.String())
	}
	e.uvarint(uint64(variants * layers * np))
	for v := 0; v < variants; v++ {
		for l := 0; l < layers; l++ {
			for p := 0; p < np; p++ {
				e.uvarint(uint64(v))
				e.uvarint(uint64(l))
				e.uvarint(uint64(p))
			}
		}
	}
	b := appendPrelude(nil)
	b = appendRecord(b, recHeader, hdr)
	b = appendRecord(b, recRegistry, e.b)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHugeValidHeaderIsBounded (issue 34, case 4): a header of 8 variants ×
// 30,000 layers with a one-probe registry (under the header-size limit,
// 5.8 M series for this build's 24 probes) is refused at Open having
// allocated a few MB; one at the bound opens.
func TestHugeValidHeaderIsBounded(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		variants, layers, np int
		ok                   bool
	}{
		{8, 30000, 1, false}, // the registry lists one probe; this build has 24
		{1, 100000, 1, false},
		{8, MaxSeries / 8 / int(probes.NumProbes), int(probes.NumProbes), true},
	} {
		path := filepath.Join(dir, "wide.ntr")
		forgeWide(t, path, c.variants, c.layers, c.np)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		r, err := Open(path)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if r != nil {
			r.Close()
		}
		if c.ok != (err == nil) || !c.ok && !strings.Contains(err.Error(), "series limit") {
			t.Errorf("%d × %d: Open = %v, want ok=%v", c.variants, c.layers, err, c.ok)
		}
		// Allocation is the bound checked here; time is BenchmarkOpenWideHeader's.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%d × %d: Open took %v and %d MB", c.variants, c.layers, took, alloc>>20)
		}
		os.Remove(path)
	}
}

// openAlloc opens path, reads every frame, and returns the bytes allocated.
func openAlloc(path string) (uint64, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := Open(path)
	if err == nil {
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
		r.Close()
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, err
}

// FuzzWideHeader: whatever variant, layer and probe counts a valid header
// and registry give, opening the file allocates a bounded amount (the
// registry record itself, at most MaxRecordSize, plus the series state at
// MaxSeries), accepted or refused.
func FuzzWideHeader(f *testing.F) {
	f.Add(uint8(8), uint16(30000), uint8(1))
	f.Add(uint8(8), uint16(MaxSeries/8/int(probes.NumProbes)), uint8(probes.NumProbes))
	f.Add(uint8(255), uint16(65535), uint8(64))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, v uint8, l uint16, p uint8) {
		variants, layers, np := 1+int(v)%64, 1+int(l), 1+int(p)%int(probes.NumProbes)
		if 3*variants*layers*np > MaxRecordSize-64 || 4*layers+64*variants > MaxHeaderSize-1024 {
			return // a writer could not frame it: the record limits refuse it before this bound matters
		}
		path := filepath.Join(dir, "wide.ntr")
		forgeWide(t, path, variants, layers, np)
		alloc, err := openAlloc(path)
		if over := seriesOver(variants, layers, int(probes.NumProbes)); over != (err != nil) {
			t.Fatalf("%d × %d × %d: Open = %v, series over the bound: %v", variants, layers, np, err, over)
		}
		if limit := uint64(2*MaxRecordSize + 32<<20); alloc > limit {
			t.Fatalf("%d × %d × %d: Open allocated %d MB", variants, layers, np, alloc>>20)
		}
	})
}

// BenchmarkOpenWideHeader: opening a file at the series bound, and one far
// over it (refused), each read to its end.
func BenchmarkOpenWideHeader(b *testing.B) {
	dir := b.TempDir()
	for _, c := range []struct {
		name                 string
		variants, layers, np int
	}{
		{"at-bound", 8, MaxSeries / 8 / int(probes.NumProbes), int(probes.NumProbes)},
		{"8x30000-refused", 8, 30000, 1},
	} {
		path := filepath.Join(dir, c.name+".ntr")
		forgeWide(b, path, c.variants, c.layers, c.np)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				openAlloc(path)
			}
		})
	}
}
