package tui

import (
	"math"
	"syscall"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/normtop/normtop/probes"
)

// benchModel: 8 variants × 12 layers, 100,000 steps, every probe measured
// every step, evals every 100 steps, a 64-value spectrum every 1000 steps.
func benchModel(b *testing.B) *Model {
	const nv, nl, steps = 8, 12, 100_000
	meta := fixtureMeta(nv, nl, steps)
	m := newLive(meta, newFakeFeed(), Options{RunPath: "runs/bench.ntr"})
	f := probes.Frame{Layers: make([]probes.LayerValues, nl)}
	sig := make([]float64, 64)
	for t := 1; t <= steps; t++ {
		ft := float64(t)
		for v := range nv {
			f.Variant, f.Step, f.Epoch = v, t, ft/1000
			f.TrainLoss = 2/(1+ft/5000) + 0.01*float64(v) + 0.01*math.Sin(ft)
			for l := range nl {
				for p := range probes.NumProbes {
					f.Layers[l][p] = float64(p+1) * (1 + 0.3*math.Sin(ft/300+float64(l+v)))
				}
			}
			f.Eval, f.Spectrum, f.Alerts = nil, nil, nil
			if t%100 == 0 {
				f.Eval = []probes.Eval{{Split: "val", Loss: f.TrainLoss + 0.1, Metric: 0.9, TrainLoss: f.TrainLoss}}
			}
			if t%1000 == 0 {
				for i := range sig {
					sig[i] = math.Exp(-0.05 * float64(i) * (1 + ft/1e5))
				}
				f.Spectrum = &probes.Spectrum{Step: t, Sigma: append([]float64(nil), sig...), EffRank: 20}
			}
			if t%5000 == 0 {
				f.Alerts = []probes.Alert{{Kind: probes.AlertOutlier, Step: t, Layer: v, Probe: probes.DistVar, Msg: "outlier"}}
			}
			m.data.add(&f)
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 240, Height: 70})
	return m
}

// BenchmarkView redraws each screen at 240×70 from 100,000 steps of history
// (goal ≤ 5 ms per frame). Run: go test ./tui -run '^$' -bench View -benchtime 20x
func BenchmarkView(b *testing.B) {
	m := benchModel(b)
	for s := range numScreens {
		b.Run(Screen(s).Title(), func(b *testing.B) {
			m.st.Screen = s
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				m.dirty = true
				_ = m.View()
			}
			// Process CPU time per frame: on a machine shared by several
			// builds the wall-clock ns/op mostly measures waiting.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkIngest: the cost of adding one frame (12 layers, every probe) to
// the histories, the work the live dashboard does per frame it drains.
func BenchmarkIngest(b *testing.B) {
	meta := fixtureMeta(8, 12, 1_000_000)
	m := newLive(meta, newFakeFeed(), Options{})
	f := probes.Frame{Layers: make([]probes.LayerValues, 12), TrainLoss: 1}
	for l := range f.Layers {
		for p := range probes.NumProbes {
			f.Layers[l][p] = float64(l + int(p))
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		f.Step, f.Variant = i/8+1, i%8
		m.data.add(&f)
	}
	bytes := m.data.hs.Bytes()
	b.ReportMetric(float64(bytes)/(1<<20), "MiB-histories")
}

// cpuTime is the process's user+system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
