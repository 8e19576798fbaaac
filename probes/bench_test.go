package probes

import (
	"fmt"
	"github.com/normtop/normtop/normspec"
	"testing"
)

// benchTaps returns 12 layers of d = 512 taps with every group filled, as a
// powernorm-like layer would (own ψ², shadow μ and σ²).
func benchTaps(layers, d int) []*normspec.Taps {
	rng := newTestRand(9)
	vec := func(base float64) []float64 {
		s := make([]float64, d)
		for k := range s {
			s[k] = base + rng.float()
		}
		return s
	}
	taps := make([]*normspec.Taps, layers)
	for i := range taps {
		t := fullTaps(vec(0), vec(1), vec(1.5), nil, nil, vec(1))
		t.N = 64
		t.PNGamma, t.NuNorm, t.GPsi2 = 1, 0.1, 0.2
		taps[i] = t
	}
	return taps
}

// BenchmarkFrame measures Collector.measure per training step with 12 layers of
// d = 512, one probe group at a time (the trainer's mask follows the
// Collector's, as in a run), so each group's cost per step can be reported.
// The norm layers' own cost of filling the taps is measured in train/.
func BenchmarkFrame(b *testing.B) {
	const layers, d = 12, 512
	names := make([]string, layers)
	for i := range names {
		names[i] = fmt.Sprintf("block%d.ln", i)
	}
	for _, g := range []struct {
		name string
		iv   Intervals
	}{
		{"off", Intervals{}},
		{"stats", Intervals{Stats: 1}},
		{"grad", Intervals{Grad: 1}},
		{"params", Intervals{Params: 1}},
		{"all", Intervals{Stats: 1, Grad: 1, Params: 1}},
	} {
		b.Run(g.name, func(b *testing.B) {
			c := NewCollector(0, names, g.iv)
			taps := benchTaps(layers, d)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				step := i + 1
				m := c.TapMask(step)
				for _, t := range taps {
					t.Mask = m
				}
				_ = c.measure(step, 0, 1, taps)
			}
		})
	}
}

// BenchmarkComputeSpectrum is the SVD cost per snapshot; it runs off the
// training goroutine, so it costs the trainer only the snapshot copy.
func BenchmarkComputeSpectrum(b *testing.B) {
	for _, sz := range []struct{ rows, cols int }{{96, 128}, {256, 512}} {
		b.Run(fmt.Sprintf("%dx%d", sz.rows, sz.cols), func(b *testing.B) {
			rng := newTestRand(5)
			emb := make([]float64, sz.rows*sz.cols)
			for i := range emb {
				emb[i] = rng.float() - 0.5
			}
			for i := 0; i < b.N; i++ {
				_ = ComputeSpectrum(i, emb, sz.rows, sz.cols)
			}
		})
	}
}
