package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/normtop/normtop/probes"
)

// streamState is a Reader's state when the file is a stream (docs/formats.md)
// rather than a run file. Open tells them apart by content.
type streamState struct {
	sm    *streamMap
	start int64 // offset of the first line after the header

	win    []byte // read window over the file, starting at winOff
	winOff int64

	scanned int64 // LastStep: lines before this offset have been scanned
	maxStep int64
	endAt   int64 // offset just after the end line, 0 until it is met: nothing after it is read

	// Steps that do not increase (docs/formats.md: each variant's steps
	// increase): such frames are kept, counted and the first one named.
	lastStep  []int
	checkedTo int64 // lines before this offset were checked (a seek re-reads them)
	disorder  int
	firstDis  string

	tally *probes.Standings // the frames read, for End's final evaluations

	ranks *rankMerge // the other ranks' streams the header lists, or nil

	layers []string      // the header's, for derived alerts
	alerts *streamAlerts // nil when the writer writes its own alerts

	writerPID  int    // the header's writer_pid (0: not said)
	writerHost string // the header's writer_host
}

// readLine returns the line at off without its '\n' (valid until the next
// read) and the offset after it. recIncomplete: the file ends inside the
// line (being written, or torn by a crash); recTooLong: no '\n' within
// MaxRecordSize bytes, next is after the one that ends it.
func (r *Reader) readLine(off int64) (line []byte, next int64, st int) {
	js := r.js
	if off >= js.winOff && off < js.winOff+int64(len(js.win)) {
		w := js.win[off-js.winOff:]
		if i := bytes.IndexByte(w, '\n'); i >= 0 {
			return w[:i], off + int64(i) + 1, recOK
		}
	}
	for want := 64 << 10; ; want = min(2*want, MaxRecordSize+1) {
		if cap(js.win) < want {
			js.win = make([]byte, want)
		}
		got, err := r.f.ReadAt(js.win[:want], off)
		js.win, js.winOff = js.win[:got], off
		if err != nil && err != io.EOF {
			r.ioErr = err
			return nil, off, recIOError
		}
		if i := bytes.IndexByte(js.win, '\n'); i >= 0 {
			if i > MaxRecordSize {
				return nil, off + int64(i) + 1, recTooLong
			}
			return js.win[:i], off + int64(i) + 1, recOK
		}
		if got < want {
			return nil, off, recIncomplete
		}
		if want > MaxRecordSize {
			if j := r.findNewline(off + int64(got)); j >= 0 {
				return nil, j + 1, recTooLong
			}
			return nil, off, recIncomplete
		}
	}
}

// findNewline returns the offset of the next '\n' at or after off, or -1.
func (r *Reader) findNewline(off int64) int64 {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.f.ReadAt(buf, off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i)
		}
		if err != nil || n == 0 {
			return -1
		}
		off += int64(n)
	}
}

// readStreamHead reads a stream's header line.
func (r *Reader) readStreamHead(listRanks bool) error {
	r.js = &streamState{maxStep: noStep}
	off := int64(0)
	for {
		line, next, st := r.readLine(off)
		switch st {
		case recIOError:
			return fmt.Errorf("stream %s: %w", r.path, r.ioErr)
		case recIncomplete:
			return fmt.Errorf("stream %s: header line is not complete: %w", r.path, ErrIncompleteHeader)
		case recTooLong:
			return fmt.Errorf("stream %s: header line longer than %d bytes", r.path, MaxRecordSize)
		}
		off = next
		if len(bytes.TrimSpace(line)) > 0 {
			h, err := parseStreamHeader(line)
			if err != nil {
				return fmt.Errorf("stream %s: %v", r.path, err)
			}
			r.js.start, r.js.scanned = off, off
			r.js.writerPID, r.js.writerHost = h.WriterPID, h.WriterHost
			r.pos = off
			r.meta = h.Meta.Safe()
			if listRanks && len(h.Streams) > 0 {
				r.js.ranks = newRankMerge(r.path, h.Meta, h.Streams)
				r.meta = r.js.ranks.meta.Safe()
			}
			r.js.sm = newStreamMap(h.Meta)
			r.js.tally = probes.NewStandings(r.meta)
			if h.Alerts != alertsWritten {
				r.js.layers = h.Meta.Layers
				r.js.alerts = newStreamAlerts(h.Meta.Layers)
			}
			return nil
		}
	}
}

// checkOrder notes a frame whose step is not above its variant's previous
// one (a trainer restarted from a checkpoint, or a writer's bug). It is
// kept: the lines are what the trainer wrote.
func (js *streamState) checkOrder(f *probes.Frame, at, next int64) {
	if js.lastStep == nil {
		js.lastStep = make([]int, len(js.sm.meta.Variants))
	}
	v := f.Variant
	if v < 0 || v >= len(js.lastStep) {
		return
	}
	prev := js.lastStep[v]
	js.lastStep[v] = f.Step
	if at < js.checkedTo {
		return
	}
	js.checkedTo = next
	if prev != 0 && f.Step <= prev {
		if js.disorder == 0 {
			js.firstDis = fmt.Sprintf("variant %s step %d after step %d, at byte %d", js.sm.meta.VariantLabel(v), f.Step, prev, at)
		}
		js.disorder++
	}
}

// StepDisorder reports the frames of a stream whose step did not increase
// over their variant's previous frame (all ranks together), and the first
// of them in words; 0 for a run file, whose writer cannot produce them.
func (r *Reader) StepDisorder() (n int, first string) {
	if r.js == nil {
		return 0, ""
	}
	n, first = r.js.disorder, r.js.firstDis
	if r.js.ranks != nil {
		for _, rs := range r.js.ranks.ranks {
			if rs.r == nil {
				continue
			}
			if k, f := rs.r.StepDisorder(); k > 0 {
				if n == 0 {
					first = fmt.Sprintf("rank %d: %s", rs.rank, f)
				}
				n += k
			}
		}
	}
	return n, first
}

// streamNext returns the next frame of this file (not of the other ranks).
func (r *Reader) streamNextOwn() (probes.Frame, error) {
	for {
		if r.js.endAt > 0 && r.pos >= r.js.endAt {
			return probes.Frame{}, io.EOF // after the end line nothing is read (docs/formats.md)
		}
		line, next, st := r.readLine(r.pos)
		switch st {
		case recIncomplete, recIOError:
			return probes.Frame{}, r.stopped(st, "stream")
		case recTooLong:
			r.damage = append(r.damage, Damage{Offset: r.pos, Length: next - r.pos, Reason: fmt.Sprintf("line longer than %d bytes", MaxRecordSize)})
			r.pos = next
			continue
		}
		at := r.pos
		r.pos = next
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		f, e, kind, err := r.js.sm.parseStreamLine(line)
		if err != nil {
			r.damage = append(r.damage, Damage{Offset: at, Length: next - at, Reason: err.Error()})
			continue
		}
		if kind == lineEnd {
			r.end, r.js.endAt = &e, next
			continue
		}
		r.js.checkOrder(&f, at, next)
		if r.js.alerts != nil { // before the seek target too: the running medians need every frame
			r.js.alerts.add(&f)
		}
		if int64(f.Step) < r.target {
			continue
		}
		return f, nil
	}
}

func (r *Reader) streamNext() (probes.Frame, error) {
	var f probes.Frame
	var err error
	if r.js.ranks == nil {
		f, err = r.streamNextOwn()
	} else {
		f, err = r.js.ranks.next(r)
	}
	if err == nil {
		r.js.tally.Fold(&f)
	}
	return f, err
}

func (r *Reader) streamSeek(step int) {
	r.pos, r.target = r.js.start, int64(step)
	clear(r.js.lastStep)
	if r.js.alerts != nil {
		r.js.alerts = newStreamAlerts(r.js.layers)
	}
	if r.js.ranks != nil {
		r.js.ranks.seek(step)
	}
}

// streamLastStep scans the lines not scanned yet for their steps.
func (r *Reader) streamLastStep() (int, bool) {
	js := r.js
	var probe struct {
		Step *int            `json:"step"`
		End  json.RawMessage `json:"end"`
	}
	for js.endAt == 0 || js.scanned < js.endAt {
		line, next, st := r.readLine(js.scanned)
		if st == recIncomplete || st == recIOError {
			break
		}
		if st == recOK {
			probe.Step, probe.End = nil, nil
			if json.Unmarshal(line, &probe) == nil {
				if probe.Step != nil {
					js.maxStep = max(js.maxStep, int64(*probe.Step))
				}
				if probe.End != nil {
					if _, _, kind, err := js.sm.parseStreamLine(line); err == nil && kind == lineEnd {
						js.endAt = next
					}
				}
			}
		}
		js.scanned = next
	}
	m := js.maxStep
	if js.ranks != nil {
		m = max(m, js.ranks.lastStep())
	}
	return int(m), m != noStep
}

// streamEnd is End for a stream: its end line (all ranks' when it lists
// others), with the final evaluations filled from the frames read.
func (r *Reader) streamEnd() (End, bool) {
	if r.end == nil {
		return End{}, false
	}
	e := End{Status: r.end.Status, Diverged: map[int]int{}, Final: map[int][]probes.Eval{}}
	for v, s := range r.end.Diverged {
		e.Diverged[v] = s
	}
	if r.js.ranks != nil {
		if !r.js.ranks.ended(&e) {
			return End{}, false
		}
	}
	for v, evs := range r.js.tally.FinalEvals() {
		e.Final[v] = evs
	}
	return e.safe(), true
}

func (r *Reader) streamState() State {
	own := r.fileState()
	if r.js.ranks == nil {
		return own
	}
	return r.js.ranks.state(own)
}

// openStream opens path as one rank's stream: its header's own list of
// streams is not followed (only the first stream's list counts).
func openStream(path string) (*Reader, error) {
	r, err := open(path, false)
	if err != nil {
		return nil, err
	}
	if r.js == nil {
		r.Close()
		return nil, fmt.Errorf("%s is a run file, not a stream", path)
	}
	return r, nil
}
