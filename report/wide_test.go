package report

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// TestReportAtSeriesBound (issue 34, case 4): the widest run the format
// allows (record.MaxSeries series) costs a report tens of MB, not the GBs a
// forged header used to: the reader refuses anything wider before a series
// is built (record's TestHugeValidHeaderIsBounded). Measured: 64 MB and
// about 1 s on a 2-core machine.
func TestReportAtSeriesBound(t *testing.T) {
	meta := probes.RunMeta{RunID: "wide", Model: "mlp", Metric: "accuracy", Data: "mnist"}
	for v := 0; v < 8; v++ {
		meta.Variants = append(meta.Variants, probes.VariantMeta{Name: "layernorm", Spec: "layernorm", Seed: int64(v + 1)})
	}
	for l := 0; l < record.MaxSeries/8/int(probes.NumProbes); l++ {
		meta.Layers = append(meta.Layers, "l")
	}
	path := filepath.Join(t.TempDir(), "wide.ntr")
	w, err := record.Create(path, meta)
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 3; s++ {
		for v := range meta.Variants {
			if err := w.Write(probes.Frame{Variant: v, Step: s, TrainLoss: 1, Layers: make([]probes.LayerValues, len(meta.Layers))}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(record.End{}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := Build([]string{path}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 128<<20 {
		t.Errorf("report of a run at the series bound allocated %d MB", alloc>>20)
	}
}
