package tui

import (
	"errors"
	"io"
	"time"

	"github.com/normtop/normtop/probes"
)

// reader wraps the ReplaySource with one frame of look-ahead. It is touched
// only by the single Cmd in flight.
type reader struct {
	src      ReplaySource
	pending  *probes.Frame
	lastTime time.Duration // recorded time of the last frame handed out
}

func frameTime(f *probes.Frame) time.Duration {
	if f.Elapsed > 0 {
		return f.Elapsed
	}
	return time.Duration(f.Step) * untimedPace
}

func (r *reader) seek(step int) error {
	r.pending = nil
	r.lastTime = 0
	return r.src.Seek(step)
}

// read returns the frames due by until, or (target ≥ 0) every frame with
// Step < target, at most batchMax of them. wait ≥ 0 (a jump to an event of
// that variant): variants interleave unevenly in a run file (each trains
// at its own pace), so frames of the others are read past target until
// variant wait's frame at target or after has been read too.
func (r *reader) read(gen int, until time.Duration, target, wait int) replayBatchMsg {
	msg := replayBatchMsg{gen: gen}
	for len(msg.frames) < batchMax {
		var f probes.Frame
		if r.pending != nil {
			f, r.pending = *r.pending, nil
		} else {
			var err error
			f, err = r.src.Next()
			if errors.Is(err, io.EOF) {
				msg.eof = true
				msg.reached = true
				if e, ok := r.src.(Ender); ok {
					msg.ended = e.Ended()
				}
				if c, ok := r.src.(Crasher); ok && msg.ended {
					msg.crashed = c.Crashed()
				}
				return msg
			}
			if err != nil {
				msg.err = err
				return msg
			}
		}
		if target >= 0 && wait >= 0 {
			if f.Variant == wait && f.Step >= target {
				// Then on to the end of that step, the variants level
				// with it included.
				wait, target = -1, f.Step+1
			}
		} else if target >= 0 {
			if f.Step >= target {
				r.pending = &f
				msg.reached = true
				return msg
			}
		} else if frameTime(&f) > until {
			r.pending = &f
			return msg
		}
		r.lastTime = max(r.lastTime, frameTime(&f))
		msg.frames = append(msg.frames, f)
	}
	return msg
}
