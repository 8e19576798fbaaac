package tui

import (
	"fmt"
	"math"
	"syscall"
	"testing"
	"time"

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

// BenchmarkFollowCatchUp: replay --follow reading a file's history at once
// (8 variants × 12 layers, every probe, 2,000 steps = 16,000 frames) through
// the model's own Cmd/Update round trips. ms-per-msg-max is the longest one
// read+ingest message took: how long a key can wait during a catch-up.
// Run: go test ./tui -run '^$' -bench FollowCatchUp -benchtime 5x
func BenchmarkFollowCatchUp(b *testing.B) {
	const nv, nl, steps = 8, 12, 2000
	meta := fixtureMeta(nv, nl, steps)
	frames := make([]probes.Frame, 0, nv*steps)
	for t := 1; t <= steps; t++ {
		for v := range nv {
			f := probes.Frame{Variant: v, Step: t, TrainLoss: 1 / float64(t), Layers: make([]probes.LayerValues, nl)}
			for l := range nl {
				for p := range probes.NumProbes {
					f.Layers[l][p] = float64(l+int(p)) + math.Sin(float64(t))
				}
			}
			frames = append(frames, f)
		}
	}
	var worst time.Duration
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		src := &sliceSource{meta: meta, frames: frames}
		m := NewReplay(src, Options{Follow: true}).(*Model)
		m.replay.schedule = func(time.Duration, tea.Msg) tea.Cmd { return nil }
		for cmd := m.replay.startCatchUp(); cmd != nil; {
			t0 := time.Now()
			_, cmd = m.Update(cmd())
			worst = max(worst, time.Since(t0))
		}
		if !m.replay.following() || m.data.frames != len(frames) {
			b.Fatalf("following=%v frames=%d", m.replay.following(), m.data.frames)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*len(frames)), "cpu-ns/frame")
	b.ReportMetric(float64(worst)/1e6, "ms-per-msg-max")
}

// BenchmarkWorkspaceView redraws a workspace of 20 runs (4 variants ×
// 10,000 steps each, loaded) at 240×70 with 5 of them overlaid: 20 list
// rows and a chart of 20 run·variant lines (goal ≤ 5 ms of CPU a frame).
// Run: go test ./tui -run '^$' -bench WorkspaceView -benchtime 40x
func BenchmarkWorkspaceView(b *testing.B) {
	const runs, nv, steps = 20, 4, 10_000
	ws := NewWorkspace(nil, nil, Options{}, "").(*Workspace)
	for r := range runs {
		meta := fixtureMeta(nv, 2, steps)
		meta.RunID = fmt.Sprintf("202601%02dT000000Z-transformer-seed1", r+1)
		st := newStore(meta)
		for t := 1; t <= steps; t++ {
			for v := range nv {
				f := probes.Frame{Variant: v, Step: t, TrainLoss: 2/(1+float64(t)/500) + 0.01*float64(v+r) + 0.05*math.Sin(float64(t))}
				if t%100 == 0 {
					f.Eval = []probes.Eval{{Split: "val", Loss: f.TrainLoss + 0.1, Metric: 0.9}}
				}
				st.add(&f)
			}
		}
		ws.runs = append(ws.runs, wsRun{path: meta.RunID + ".ntr", meta: meta, data: st, loaded: true})
		if r%4 == 0 {
			ws.picked[r] = true
		}
	}
	ws.Update(tea.WindowSizeMsg{Width: 240, Height: 70})
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		_ = ws.View()
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}
