package tui

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// wsBenchMB is the size of each of the 20 run files of
// BenchmarkWorkspaceFirstPaint: NORMTOP_BENCH_WS_MB MiB (the 100),
// 4 by default so that `go test -bench .` stays quick.
func wsBenchMB() int64 {
	if mb, err := strconv.Atoi(os.Getenv("NORMTOP_BENCH_WS_MB")); err == nil && mb > 0 {
		return int64(mb)
	}
	return 4
}

// writeWSRun writes a run file of about mb MiB: 8 variants × 12 layers,
// every probe every step.
func writeWSRun(b *testing.B, path string, mb int64) {
	m := probes.RunMeta{RunID: filepath.Base(path), Model: "transformer", Data: "bench", Metric: "ppl",
		Start: time.Unix(0, 0), Config: map[string]string{"steps": "0"}}
	for v := 0; v < 8; v++ {
		m.Variants = append(m.Variants, probes.VariantMeta{Name: "layernorm", Spec: "layernorm:eps=" + strconv.Itoa(v+1) + "e-5"})
	}
	for l := 0; l < 12; l++ {
		m.Layers = append(m.Layers, fmt.Sprintf("block%d.ln1", l))
	}
	w, err := record.Create(path, m)
	if err != nil {
		b.Fatal(err)
	}
	x := 1.0
	for step := 1; ; step++ {
		if _, n := w.Stats(); n >= mb<<20 {
			break
		}
		for v := range m.Variants {
			f := probes.Frame{Variant: v, Step: step, TrainLoss: 3 / math.Sqrt(float64(step)), Layers: make([]probes.LayerValues, len(m.Layers))}
			for l := range f.Layers {
				for p := range f.Layers[l] {
					x = math.Mod(x*1.6180339887+0.1234567, 7.3) // full-precision values, as real probes are
					f.Layers[l][p] = x
				}
			}
			if err := w.Write(f); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := w.Close(record.End{}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWorkspaceFirstPaint: a workspace of 20 run files, from the
// start to the first painted list (every header read, nothing else): the
// issue's ≤ 2 s for 20 files of 100 MB (NORMTOP_BENCH_WS_MB=100). The
// frames load after the first paint.
func BenchmarkWorkspaceFirstPaint(b *testing.B) {
	dir := b.TempDir()
	mb := wsBenchMB()
	var paths []string
	var size int64
	for i := 0; i < 20; i++ {
		p := filepath.Join(dir, fmt.Sprintf("run%02d.ntr", i))
		writeWSRun(b, p, mb)
		paths = append(paths, p)
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		size += fi.Size()
	}
	open := func(path string) (ReplaySource, func(), error) {
		r, err := record.Open(path)
		if err != nil {
			return nil, nil, err
		}
		return r, func() { r.Close() }, nil
	}
	b.ResetTimer()
	for b.Loop() {
		ws := NewWorkspace(paths, open, Options{}, "").(*Workspace)
		ws.Update(tea.WindowSizeMsg{Width: 240, Height: 70})
		for i, p := range paths {
			ws.Update(headerCmd(open, i, p)())
		}
		if v := ws.View(); v.Content == "" {
			b.Fatal("empty first paint")
		}
	}
	b.ReportMetric(float64(size)/20/(1<<20), "MiB/file")
}
