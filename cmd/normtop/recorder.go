package main

import (
	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// recorder writes every Frame to the run file (the lossless path) and keeps
// what the end record and the exit code need: each variant's last status
// and the step it diverged at. It is called from the runner's emit callback,
// which the runner never calls concurrently.
type recorder struct {
	w          *record.Writer
	status     []probes.Status
	seen       []bool
	divergedAt map[int]int
	err        error // first write error; the run is stopped on it
	onError    func()
}

func newRecorder(w *record.Writer, variants int, onError func()) *recorder {
	return &recorder{w: w, status: make([]probes.Status, variants), seen: make([]bool, variants),
		divergedAt: map[int]int{}, onError: onError}
}

func (r *recorder) write(f probes.Frame) {
	if f.Variant >= 0 && f.Variant < len(r.status) {
		r.status[f.Variant] = f.Status
		r.seen[f.Variant] = true
		if f.Status == probes.Diverged {
			r.divergedAt[f.Variant] = f.Step
		}
	}
	if r.err != nil {
		return
	}
	if err := r.w.Write(f); err != nil {
		r.err = err
		r.onError()
	}
}

// allDiverged reports whether every variant diverged.
func (r *recorder) allDiverged() bool {
	for _, s := range r.status {
		if s != probes.Diverged {
			return false
		}
	}
	return len(r.status) > 0
}

// end builds the end record: completed when every variant finished (done or
// diverged), diverged when all of them diverged, interrupted otherwise.
func (r *recorder) end() record.End {
	status := "completed"
	for i, s := range r.status {
		if !r.seen[i] || s == probes.Running || s == probes.Stopped {
			status = "interrupted"
		}
	}
	if status == "completed" && r.allDiverged() {
		status = "diverged"
	}
	return record.End{Status: status, Diverged: r.divergedAt}
}
