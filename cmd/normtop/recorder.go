package main

import (
	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// recorder writes every Frame to the run file (the lossless path). The
// writer folds each Frame it takes into its probes.Standings, once; the end
// record and the exit code are read from those. It is called from the
// runner's emit callback, which the runner never calls concurrently.
type recorder struct {
	w       *record.Writer
	err     error // first write error; the run is stopped on it
	onError func()
}

func newRecorder(w *record.Writer, onError func()) *recorder {
	return &recorder{w: w, onError: onError}
}

func (r *recorder) write(f probes.Frame) {
	if r.err != nil {
		return
	}
	if err := r.w.Write(f); err != nil {
		r.err = err
		r.onError()
	}
}

// allDiverged reports whether every variant diverged.
func (r *recorder) allDiverged() bool { return r.w.Standings().AllDiverged() }

// end builds the end record from the writer's standings
// (probes.Standings.EndStatus has the rule).
func (r *recorder) end() record.End {
	s := r.w.Standings()
	return record.End{Status: s.EndStatus(), Diverged: s.DivergedSteps()}
}
