package probes

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// spectrumJob is one embedding snapshot waiting for its SVD.
type spectrumJob struct {
	step       int
	emb        []float64
	rows, cols int
}

// spectrumWorker runs SVDs on a goroutine of its own, one at a time, so the
// training goroutine never waits for one.
//
// Back-pressure policy: at most one SVD runs and at most one snapshot waits.
// A snapshot submitted while another is still waiting replaces it (the older
// one is dropped and counted in dropped): the dashboard wants the newest
// spectrum, not a backlog. Likewise, when several SVDs finish between two
// Frames only the newest result rides on the next Frame.
type spectrumWorker struct {
	mu      sync.Mutex
	done    *sync.Cond // on mu; broadcast when the worker goes idle
	running bool
	pending *spectrumJob
	ready   *Spectrum
	dropped int
	compute func(step int, emb []float64, rows, cols int) Spectrum // ComputeSpectrum; tests block it
}

// SubmitSpectrum hands a snapshot of the rows×cols embedding matrix
// (row-major; the Collector takes ownership of emb) to the spectrum worker.
// It never blocks on the SVD: if one is running, the snapshot waits, replacing
// any snapshot already waiting. The result rides on a later Frame (or the
// variant's last, which waits for it). A snapshot whose size does not match rows×cols, or
// that is empty, is ignored.
func (c *Collector) SubmitSpectrum(step int, emb []float64, rows, cols int) {
	if rows <= 0 || cols <= 0 || len(emb) != rows*cols {
		return
	}
	c.spect.submit(&spectrumJob{step: step, emb: emb, rows: rows, cols: cols})
}

// SpectraDropped reports how many submitted snapshots were replaced before
// their SVD started.
func (c *Collector) SpectraDropped() int {
	c.spect.mu.Lock()
	defer c.spect.mu.Unlock()
	return c.spect.dropped
}

func (w *spectrumWorker) submit(j *spectrumJob) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running {
		if w.pending != nil {
			w.dropped++
		}
		w.pending = j
		return
	}
	w.running = true
	go w.run(j)
}

func (w *spectrumWorker) run(j *spectrumJob) {
	for j != nil {
		s := w.compute(j.step, j.emb, j.rows, j.cols)
		w.mu.Lock()
		if w.ready == nil || s.Step >= w.ready.Step {
			w.ready = &s
		}
		j, w.pending = w.pending, nil
		if j == nil {
			w.running = false
			w.done.Broadcast()
		}
		w.mu.Unlock()
	}
}

// take returns the newest finished spectrum not yet handed out, or nil.
func (w *spectrumWorker) take() *Spectrum {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.ready
	w.ready = nil
	return s
}

// wait blocks until no SVD is running or waiting, then behaves like take.
func (w *spectrumWorker) wait() *Spectrum {
	w.mu.Lock()
	for w.running {
		w.done.Wait()
	}
	s := w.ready
	w.ready = nil
	w.mu.Unlock()
	return s
}

// ComputeSpectrum returns the spectrum of the rows×cols row-major matrix emb
// (spec §5): its singular values, descending, each divided by the largest,
// and the effective rank exp(H(p)) with p_i = σ_i/Σσ. A zero matrix has
// Sigma all zero and EffRank 0; a failed factorisation gives Sigma nil and
// EffRank NaN. It runs on the caller's goroutine; emb is not modified.
func ComputeSpectrum(step int, emb []float64, rows, cols int) Spectrum {
	out := Spectrum{Step: step, EffRank: math.NaN()}
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(rows, cols, emb), mat.SVDNone) {
		return out
	}
	sv := svd.Values(nil) // descending
	var total float64
	for _, s := range sv {
		total += s
	}
	out.Sigma = make([]float64, len(sv))
	if len(sv) == 0 || sv[0] <= 0 {
		out.EffRank = 0
		return out
	}
	var h float64
	for i, s := range sv {
		out.Sigma[i] = s / sv[0]
		if p := s / total; p > 0 {
			h -= p * math.Log(p)
		}
	}
	out.EffRank = math.Exp(h)
	return out
}
