package main

import (
	"sync"

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

	closeOnce sync.Once
	closed    record.End // the end record written by finish
	closeErr  error
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

// finish writes the end record and closes the run file, once: when
// training ends (the live dashboard calls it as soon as the runner returns,
// so the file is complete while the finished run is still on screen), and
// again, harmlessly, when the command returns. Later calls return the first
// call's end record and error; quitting the dashboard changes nothing.
func (r *recorder) finish() (record.End, error) {
	r.closeOnce.Do(func() {
		r.closed = r.end()
		r.closeErr = r.w.Close(r.closed)
	})
	return r.closed, r.closeErr
}
