package main

import (
	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// recorder writes every Frame to the run file (the lossless path) and folds
// it into a probes.Standings, from which the end record and the exit code are
// read. It is called from the runner's emit callback, which the runner never
// calls concurrently.
type recorder struct {
	w       *record.Writer
	tally   *probes.Standings
	err     error // first write error; the run is stopped on it
	onError func()
}

func newRecorder(w *record.Writer, variants int, onError func()) *recorder {
	return &recorder{w: w, tally: probes.NewStandingsSize(variants, 0), onError: onError}
}

func (r *recorder) write(f probes.Frame) {
	r.tally.Fold(&f)
	if r.err != nil {
		return
	}
	if err := r.w.Write(f); err != nil {
		r.err = err
		r.onError()
	}
}

// allDiverged reports whether every variant diverged.
func (r *recorder) allDiverged() bool { return r.tally.AllDiverged() }

// end builds the end record from the tally (probes.Standings.EndStatus has the rule).
func (r *recorder) end() record.End {
	return record.End{Status: r.tally.EndStatus(), Diverged: r.tally.DivergedSteps()}
}
