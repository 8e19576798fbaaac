package probes

import (
	"github.com/normtop/normtop/normspec"
	"math"
	"sync"
	"testing"
)

func TestComputeSpectrum(t *testing.T) {
	h := func(p ...float64) float64 {
		var s float64
		for _, x := range p {
			if x > 0 {
				s -= x * math.Log(x)
			}
		}
		return math.Exp(s)
	}
	cases := []struct {
		name       string
		rows, cols int
		emb        []float64
		sigma      []float64
		effRank    float64
	}{
		{"diagonal 3×3", 3, 3, []float64{0, 0, 1, 4, 0, 0, 0, 2, 0}, []float64{1, 0.5, 0.25}, h(4.0/7, 2.0/7, 1.0/7)},
		{"rank one 2×3", 2, 3, []float64{1, 2, 2, 2, 4, 4}, []float64{1, 0}, 1},
		{"orthogonal rows, equal norms, 4×2", 4, 2, []float64{3, 0, 0, 3, 0, 0, 0, 0}, []float64{1, 1}, 2},
		{"zero matrix", 2, 2, []float64{0, 0, 0, 0}, []float64{0, 0}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			emb := append([]float64(nil), tc.emb...)
			s := ComputeSpectrum(7, emb, tc.rows, tc.cols)
			if s.Step != 7 || len(s.Sigma) != len(tc.sigma) {
				t.Fatalf("spectrum = %+v, want %d values", s, len(tc.sigma))
			}
			for i := range tc.sigma {
				if math.Abs(s.Sigma[i]-tc.sigma[i]) > 1e-12 {
					t.Errorf("Sigma = %v, want %v", s.Sigma, tc.sigma)
					break
				}
			}
			if math.Abs(s.EffRank-tc.effRank) > 1e-9 {
				t.Errorf("EffRank = %v, want %v", s.EffRank, tc.effRank)
			}
			for i := range emb {
				if emb[i] != tc.emb[i] {
					t.Fatal("ComputeSpectrum modified its input")
				}
			}
		})
	}
}

// blockingCompute replaces the SVD with one that waits for a release, so the
// tests can hold a job "running" deterministically.
type blockingCompute struct {
	started chan int
	release chan struct{}
}

func (b *blockingCompute) compute(step int, emb []float64, rows, cols int) Spectrum {
	b.started <- step
	<-b.release
	return ComputeSpectrum(step, emb, rows, cols)
}

func diag(v float64) []float64 { return []float64{v, 0, 0, 1} }

func TestSpectrumNeverBlocksAndKeepsNewest(t *testing.T) {
	c := NewCollector(0, nil, DefaultIntervals())
	b := &blockingCompute{started: make(chan int, 8), release: make(chan struct{})}
	c.spect.compute = b.compute

	c.SubmitSpectrum(100, diag(2), 2, 2)
	if got := <-b.started; got != 100 {
		t.Fatalf("started step %d", got)
	}
	// The SVD of step 100 is held running: these must return at once.
	c.SubmitSpectrum(200, diag(4), 2, 2)
	c.SubmitSpectrum(300, diag(8), 2, 2) // replaces 200
	c.SubmitSpectrum(400, []float64{1}, 2, 2)
	if f := c.measure(301, 0, 1, nil); f.Spectrum != nil {
		t.Fatalf("a spectrum rode on a frame before any SVD finished: %+v", f.Spectrum)
	}
	if c.SpectraDropped() != 1 {
		t.Errorf("dropped = %d, want 1 (step 200)", c.SpectraDropped())
	}
	close(b.release)
	var f Frame
	c.finish(&f, Done)
	if f.Status != Done || f.Spectrum == nil || f.Spectrum.Step != 300 || f.Spectrum.Sigma[1] != 1.0/8 {
		t.Fatalf("finish: %+v spectrum %+v, want Done with step 300's", f, f.Spectrum)
	}
	if got := <-b.started; got != 300 {
		t.Errorf("second SVD ran step %d, want 300", got)
	}
	if f := c.measure(302, 0, 1, nil); f.Spectrum != nil {
		t.Error("a spectrum was handed out twice")
	}
}

func TestSpectrumRidesOnNextFrame(t *testing.T) {
	c := NewCollector(0, nil, DefaultIntervals())
	c.SubmitSpectrum(100, diag(3), 2, 2)
	c.spect.wait() // drop it: the next submission must arrive on its own
	c.SubmitSpectrum(200, diag(5), 2, 2)
	c.spect.mu.Lock()
	for c.spect.running {
		c.spect.done.Wait()
	}
	c.spect.mu.Unlock()
	f := c.measure(201, 0, 1, nil)
	if f.Spectrum == nil || f.Spectrum.Step != 200 || math.Abs(f.Spectrum.Sigma[1]-0.2) > 1e-12 {
		t.Fatalf("spectrum = %+v", f.Spectrum)
	}
	var last Frame
	c.finish(&last, Done)
	if last.Spectrum != nil {
		t.Errorf("finish attached an old spectrum again: %+v", last.Spectrum)
	}
}

// TestSpectrumRace runs frames and submissions concurrently with a reader of
// the dropped counter; run with -race.
func TestSpectrumRace(t *testing.T) {
	c := NewCollector(0, []string{"l"}, Intervals{Stats: 1, Grad: 1, Params: 1, Spectrum: 5})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				_ = c.SpectraDropped()
			}
		}
	}()
	got := 0
	rng := newTestRand(3)
	for step := 1; step <= 400; step++ {
		if c.WantSpectrum(step) {
			emb := make([]float64, 16*8)
			for i := range emb {
				emb[i] = rng.float()
			}
			c.SubmitSpectrum(step, emb, 16, 8)
		}
		tp := fullTaps([]float64{1, 2}, []float64{1, 1}, []float64{2, 5}, nil, nil, nil)
		if f := c.measure(step, 0, 1, []*normspec.Taps{tp}); f.Spectrum != nil {
			got++
			if f.Spectrum.Sigma[0] != 1 || f.Spectrum.EffRank < 1 || f.Spectrum.EffRank > 8 {
				t.Fatalf("bad spectrum %+v", f.Spectrum)
			}
		}
	}
	var f Frame
	c.finish(&f, Done)
	if f.Spectrum != nil {
		got++
	}
	close(stop)
	wg.Wait()
	if got == 0 || got+c.SpectraDropped() > 80 {
		t.Errorf("%d spectra delivered, %d dropped of 80 submitted", got, c.SpectraDropped())
	}
}
