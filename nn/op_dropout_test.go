package nn

import (
	"math"
	"math/rand"
	"testing"
)

// dropProbs are dropout rates at and around the interesting places: the
// presets' 0.1 and 0.3, rates whose p·2⁶³ falls between two float64
// integers or on one, the smallest and largest rates below 1.
var dropProbs = []float64{0, 0.1, 0.25, 0.3, 0.5, 1.0 / 3, 0.9,
	math.SmallestNonzeroFloat64, 1e-300, 0x1p-63, 0x1p-62, 3 * 0x1p-64, 0x1p-11, math.Nextafter(0x1p-11, 0),
	math.Nextafter(0.5, 1), math.Nextafter(0.5, 0), math.Nextafter(1, 0), math.Nextafter(math.Nextafter(1, 0), 0)}

// float64Draw is math/rand's Float64 of one Int63 draw x, before its
// redraw: float64(x)/2⁶³.
func float64Draw(x int64) float64 { return float64(x) / (1 << 63) }

// TestDropCut: cut and redraw are the exact boundaries of Float64() < p
// and of Float64's redraw, at every rate (each side of both boundaries,
// and the ends of Int63's range).
func TestDropCut(t *testing.T) {
	for _, p := range dropProbs {
		cut, redraw := dropCut(p)
		if cut < 0 || cut > redraw {
			t.Fatalf("p %g: cut %d outside [0, redraw %d]", p, cut, redraw)
		}
		if float64Draw(cut) < p {
			t.Errorf("p %g: x = cut %d gives %v < p (dropped)", p, cut, float64Draw(cut))
		}
		if cut > 0 && !(float64Draw(cut-1) < p) {
			t.Errorf("p %g: x = cut−1 gives %v ≥ p (kept)", p, float64Draw(cut-1))
		}
		if float64Draw(redraw) != 1 || float64Draw(math.MaxInt64) != 1 {
			t.Errorf("p %g: redraw %d gives %v, want 1", p, redraw, float64Draw(redraw))
		}
		if float64Draw(redraw-1) >= 1 {
			t.Errorf("p %g: redraw−1 gives %v, want < 1", p, float64Draw(redraw-1))
		}
	}
	if cut, _ := dropCut(0); cut != 0 {
		t.Errorf("p 0: cut %d, want 0 (nothing dropped)", cut)
	}
}

// redrawAt is a fixedSource of n seeded draws whose draw k is MaxInt64, a
// draw Float64 rejects.
func redrawAt(k, n int) *fixedSource {
	r := rand.NewSource(3)
	v := make([]int64, n)
	for i := range v {
		v[i] = r.Int63()
	}
	v[k] = math.MaxInt64
	return &fixedSource{vals: v}
}

// fixedSource is a rand.Source that returns its values in turn, so a test
// can put draws at the boundaries into the stream.
type fixedSource struct {
	vals []int64
	i    int
}

func (s *fixedSource) Int63() int64 {
	v := s.vals[s.i%len(s.vals)]
	s.i++
	return v
}

func (s *fixedSource) Uint64() uint64 { return uint64(s.Int63()) }

func (s *fixedSource) Seed(int64) {}

// oldMask is the mask as drawMask made it before its integer form:
// Float64() < p per entry, float64 entries 0 or 1/(1−p); at p = 0 every
// entry 1 and no draw.
func oldMask(rng *rand.Rand, p float64, n int) []float64 {
	m := make([]float64, n)
	for i := range m {
		if p == 0 {
			m[i] = 1
		} else if rng.Float64() < p {
			m[i] = 0
		} else {
			m[i] = 1 / (1 - p)
		}
	}
	return m
}

// TestDropoutMaskStream: drawMask's integer decisions on a Stream are
// Float64() < p's on a rand.Rand of the same source, entry for entry and
// draw for draw (the stream continues in step), on seeded streams long
// enough to run the Stream's recurrence and on a stream of boundary draws
// (each side of cut and of redraw, MaxInt64; fewer than the 607 draws a
// Stream takes from its source), at every rate of dropProbs.
func TestDropoutMaskStream(t *testing.T) {
	for _, p := range dropProbs {
		cut, redraw := dropCut(p)
		sources := map[string]func() rand.Source64{
			"seed 1":  func() rand.Source64 { return rand.NewSource(1).(rand.Source64) },
			"seed 42": func() rand.Source64 { return rand.NewSource(42).(rand.Source64) },
			"boundaries": func() rand.Source64 {
				v := []int64{0, 1, redraw, cut, math.MaxInt64, redraw - 1, redraw + 1, 12345}
				if cut > 0 {
					v = append(v, cut-1, cut+1, redraw, cut-1)
				}
				return &fixedSource{vals: v}
			},
			// a redraw in drawMask's first block of draws and in its
			// second (fewer than 607 draws in all)
			"redraw early": func() rand.Source64 { return redrawAt(10, 560) },
			"redraw late":  func() rand.Source64 { return redrawAt(300, 560) },
		}
		for name, src := range sources {
			n := 5003
			switch name {
			case "boundaries":
				n = 400
			case "redraw early", "redraw late":
				n = 540
			}
			want := oldMask(rand.New(src()), p, n)
			got := newStream(src())
			o := &DropoutSite{p: p, rng: got, training: true}
			o.drawMask(n)
			ref := rand.New(src())
			oldMask(ref, p, n)
			for i := range want {
				if w := float32(want[i]); o.mask[i] != w {
					t.Fatalf("p %g, %s: entry %d = %v, want %v", p, name, i, o.mask[i], w)
				}
			}
			if a, b := got.Int63(), ref.Int63(); a != b {
				t.Fatalf("p %g, %s: the streams part after the mask (%d, %d)", p, name, a, b)
			}
		}
	}
}

// TestDropoutMulMask: the kernels multiply as the float64 mask did, x·0
// included (NaN and ±Inf stay NaN, negatives give −0), at lengths around
// the 8-lane blocks, float32 on both paths and float64.
func TestDropoutMulMask(t *testing.T) {
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1.5, -0.0, 0, 3, 1e38, -1e-40}
	for _, p := range []float64{0.3, 0.1} {
		keep := 1 / (1 - p)
		for _, n := range vecLengths {
			mask64 := make([]float64, n)
			mask := make([]float32, n)
			x := make([]float64, n)
			rng := rand.New(rand.NewSource(int64(n)))
			for i := range x {
				x[i] = rng.NormFloat64()
				if i%3 == 0 {
					x[i] = specials[i/3%len(specials)]
				}
				if rng.Float64() >= p {
					mask64[i], mask[i] = keep, float32(keep)
				}
			}
			bothPaths(t, func(t *testing.T) {
				x32, out32 := make([]float32, n), make([]float32, n)
				for i, v := range x {
					x32[i] = float32(v)
				}
				mulMaskRow(x32, mask, keep, out32)
				for i, v := range x32 {
					if w := v * float32(mask64[i]); math.Float32bits(out32[i]) != math.Float32bits(w) && !(w != w && out32[i] != out32[i]) {
						t.Fatalf("p %g n %d float32 [%d]: %v·mask = %v, want %v", p, n, i, v, out32[i], w)
					}
				}
				out64 := make([]float64, n)
				mulMaskRow(x, mask, keep, out64)
				for i, v := range x {
					if w := v * mask64[i]; math.Float64bits(out64[i]) != math.Float64bits(w) && !(w != w && out64[i] != out64[i]) {
						t.Fatalf("p %g n %d float64 [%d]: %v·mask = %v, want %v", p, n, i, v, out64[i], w)
					}
				}
			})
		}
	}
}

// BenchmarkDropoutMask: one mask of the word LM's d-512 FFN (1,024 tokens
// × 2,048) at the presets' rate.
func BenchmarkDropoutMask(b *testing.B) {
	o := &DropoutSite{p: 0.3, rng: NewStream(1), training: true}
	const n = 1024 * 2048
	b.SetBytes(n)
	for i := 0; i < b.N; i++ {
		o.drawMask(n)
	}
}
