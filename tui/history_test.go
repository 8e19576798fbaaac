package tui

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/normtop/normtop/probes"
)

type point struct {
	step int
	v    float64
}

// bruteView computes what View(width) must return from the raw points,
// independently of history's merging: a history of capacity C holding n
// points stores consecutive groups of s points (the last possibly partial),
// s being the smallest power of two with ⌈n/s⌉ ≤ C; View then merges group
// ranges [i·g/width, (i+1)·g/width) of the g groups.
func bruteView(pts []point, capacity, width int) []bucket {
	n := len(pts)
	if n == 0 || width <= 0 {
		return nil
	}
	s := 1
	for (n+s-1)/s > capacity {
		s *= 2
	}
	g := (n + s - 1) / s
	summarise := func(lo, hi int) bucket { // points [lo, hi)
		b := bucket{FirstStep: pts[lo].step, LastStep: pts[hi-1].step, Min: math.Inf(1), Max: math.Inf(-1),
			Last: pts[hi-1].v, Count: hi - lo}
		for _, p := range pts[lo:hi] {
			b.Min = math.Min(b.Min, p.v)
			b.Max = math.Max(b.Max, p.v)
		}
		return b
	}
	var out []bucket
	if g <= width {
		for i := 0; i < g; i++ {
			out = append(out, summarise(i*s, min((i+1)*s, n)))
		}
		return out
	}
	for i := 0; i < width; i++ {
		lo, hi := i*g/width, (i+1)*g/width
		out = append(out, summarise(lo*s, min(hi*s, n)))
	}
	return out
}

func TestHistoryViewMatchesBruteForce(t *testing.T) {
	cases := []struct {
		capacity, n, width, nanEvery int
	}{
		{8, 0, 4, 0},
		{8, 5, 10, 0},
		{8, 8, 8, 0},
		{8, 9, 8, 0},
		{8, 9, 3, 0},
		{8, 100, 5, 0},
		{7, 100, 5, 0}, // odd capacity rounds up to 8
		{16, 1000, 7, 3},
		{512, 100000, 240, 0},
		{512, 12345, 200, 5},
		{2, 33, 1, 0},
		{64, 64, 64, 0},
		{64, 65, 64, 0},
	}
	for _, tc := range cases {
		h := newHistory(tc.capacity)
		capRounded := max(2, tc.capacity+tc.capacity&1)
		rng := rand.New(rand.NewPCG(uint64(tc.n+tc.capacity), 1)) // a fixed, specified stream
		var pts []point
		for step := 1; len(pts) < tc.n; step++ {
			v := rng.Float64()*10 - 5
			if tc.nanEvery > 0 && step%tc.nanEvery == 0 {
				h.Add(step, math.NaN())
				continue
			}
			h.Add(step, v)
			pts = append(pts, point{step, v})
		}
		got, want := h.View(tc.width), bruteView(pts, capRounded, tc.width)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("cap %d n %d width %d:\n got %v\nwant %v", tc.capacity, tc.n, tc.width, got, want)
		}
		if h.Len() != len(pts) {
			t.Errorf("cap %d n %d: Len = %d", tc.capacity, tc.n, h.Len())
		}
		if step, v, ok := h.Last(); ok != (len(pts) > 0) || (ok && (step != pts[len(pts)-1].step || v != pts[len(pts)-1].v)) {
			t.Errorf("cap %d n %d: Last = %d %v %v", tc.capacity, tc.n, step, v, ok)
		}
	}
}

func TestHistoryReset(t *testing.T) {
	h := newHistory(4)
	for i := 1; i <= 100; i++ {
		h.Add(i, float64(i))
	}
	h.Reset()
	if h.Len() != 0 || h.View(10) != nil {
		t.Fatal("Reset left points behind")
	}
	h.Add(7, 1)
	if got := h.View(10); len(got) != 1 || got[0].Count != 1 || got[0].FirstStep != 7 {
		t.Fatalf("after Reset: %v", got)
	}
}

// TestHistoryBoundedMemory runs a 1,000,000-step series and checks that the
// memory held stops growing once the capacity is reached.
func TestHistoryBoundedMemory(t *testing.T) {
	const steps = 1_000_000
	h := newHistory(defaultHistoryCapacity)
	var atCapacity int
	for i := 1; i <= steps; i++ {
		h.Add(i, math.Sin(float64(i)))
		if i == defaultHistoryCapacity {
			atCapacity = h.Bytes()
		}
	}
	limit := int(24+8+8) + defaultHistoryCapacity*48 // header + full bucket array
	if h.Bytes() != atCapacity || h.Bytes() > limit {
		t.Fatalf("bytes after %d steps = %d, at capacity %d, limit %d", steps, h.Bytes(), atCapacity, limit)
	}
	if h.Len() != steps {
		t.Fatalf("Len = %d", h.Len())
	}
	v := h.View(240)
	if len(v) != 240 || v[0].FirstStep != 1 || v[239].LastStep != steps {
		t.Fatalf("view does not cover the run: %v … %v", v[0], v[len(v)-1])
	}
	t.Logf("1,000,000 steps: %d bytes per series (capacity %d buckets)", h.Bytes(), defaultHistoryCapacity)
}

func BenchmarkHistoryAdd(b *testing.B) {
	h := newHistory(defaultHistoryCapacity)
	for i := 0; i < b.N; i++ {
		h.Add(i+1, float64(i))
	}
	b.ReportMetric(float64(h.Bytes()), "bytes/series")
}

func BenchmarkHistoryView240(b *testing.B) {
	h := newHistory(defaultHistoryCapacity)
	for i := 1; i <= 1_000_000; i++ {
		h.Add(i, float64(i))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = h.View(240)
	}
}

// historiesFrame is variant 1's frame at step: train loss 1/step, layer 0
// measuring every probe but g_psi2 (gamma_drift = step), layer 1 nothing;
// a val and a test evaluation every 10 steps, a spectrum (of step 40) on
// step 50.
func historiesFrame(step int) probes.Frame {
	l0, l1 := probes.EmptyLayerValues(), probes.EmptyLayerValues()
	for p := range probes.NumProbes {
		if p != probes.GPsi2 {
			l0[p] = float64(step)
		}
	}
	f := probes.Frame{Variant: 1, Step: step, TrainLoss: 1 / float64(step), Layers: []probes.LayerValues{l0, l1}}
	if step%10 == 0 {
		f.Eval = []probes.Eval{{Split: "val", Loss: 2, Metric: 0.5, TrainLoss: 0.25}, {Split: "test", Loss: 9}}
	}
	if step == 50 {
		f.Spectrum = &probes.Spectrum{Step: 40, Sigma: []float64{1}, EffRank: 1.5}
	}
	return f
}

func TestHistories(t *testing.T) {
	hs := newHistories(16)
	for step := 1; step <= 100; step++ {
		hs.Add(historiesFrame(step))
	}
	if hs.Probe(0, 0, probes.DistMu) != nil || hs.Probe(1, 1, probes.DistMu) != nil || hs.Probe(1, 0, probes.GPsi2) != nil ||
		hs.Probe(1, 5, probes.DistMu) != nil || hs.Probe(-1, 0, probes.DistMu) != nil || hs.Run(7, seriesTrainLoss) != nil {
		t.Error("a series exists for values never recorded")
	}
	if s := hs.Probe(1, 0, probes.GammaDrift); s == nil || s.Len() != 100 {
		t.Fatalf("gamma_drift series = %v", s)
	}
	if _, v, _ := hs.Run(1, seriesTrainLoss).Last(); v != 0.01 {
		t.Errorf("train loss last = %v", v)
	}
	if s := hs.Run(1, seriesValLoss); s == nil || s.Len() != 10 {
		t.Errorf("val loss series = %v, want 10 points (test evals excluded)", s)
	}
	if step, v, _ := hs.Run(1, seriesGap).Last(); step != 100 || v != 2-0.25 {
		t.Errorf("gap last = %d %v", step, v)
	}
	if step, v, _ := hs.Run(1, seriesValTrain).Last(); step != 100 || v != 0.25 {
		t.Errorf("val train last = %d %v", step, v)
	}
	if step, v, _ := hs.Run(1, seriesEffRank).Last(); step != 40 || v != 1.5 {
		t.Errorf("eff rank = %d %v", step, v)
	}
	// Every probe of layer 0 but g_psi2, and train, val loss, val metric,
	// gap, val train, eff rank.
	if n := hs.Series(); n != int(probes.NumProbes)-1+6 {
		t.Errorf("Series = %d", n)
	}
	if hs.Bytes() <= 0 || hs.Bytes() > hs.Series()*(40+16*48) {
		t.Errorf("Bytes = %d for %d series", hs.Bytes(), hs.Series())
	}
	hs.Reset()
	if hs.Run(1, seriesTrainLoss).Len() != 0 {
		t.Error("Reset kept points")
	}
}
