package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/normtop/normtop/probes"
)

// streamFile is the stream as a Reader's source (docs/formats.md "Stream"):
// JSON Lines, a header line, then one line per frame and an end line, which
// any trainer can write (the PyTorch hook in python/). A rank-0 stream that
// lists other ranks' streams reads them alongside (stream_ranks.go).
type streamFile struct {
	*input
	meta  probes.RunMeta // as the Reader returns it: every rank's variants
	sm    *streamMap
	start int64 // offset of the first line after the header

	win    []byte // read window over the file, starting at winOff
	winOff int64

	scanned int64 // lastStep: lines before this offset have been scanned
	maxStep int64
	endLine *End  // the end line, once read
	endAt   int64 // offset just after the end line, 0 until it is met: nothing after it is read

	// Steps that do not increase (docs/formats.md: each variant's steps
	// increase): such frames are kept, counted and the first one named.
	prevStep  []int // each variant's last step read
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
func (js *streamFile) readLine(off int64) (line []byte, next int64, st int) {
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
		got, err := js.f.ReadAt(js.win[:want], off)
		js.win, js.winOff = js.win[:got], off
		if err != nil && err != io.EOF {
			js.ioErr = err
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
			if j := js.findNewline(off + int64(got)); j >= 0 {
				return nil, j + 1, recTooLong
			}
			return nil, off, recIncomplete
		}
	}
}

// findNewline returns the offset of the next '\n' at or after off, or -1.
func (js *streamFile) findNewline(off int64) int64 {
	buf := make([]byte, 64<<10)
	for {
		n, err := js.f.ReadAt(buf, off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i)
		}
		if err != nil || n == 0 {
			return -1
		}
		off += int64(n)
	}
}

// openStreamFile reads a stream's header line; listRanks: open the other
// ranks' streams it lists.
func openStreamFile(in *input, listRanks bool) (*streamFile, probes.RunMeta, error) {
	js := &streamFile{input: in, maxStep: noStep}
	off := int64(0)
	for {
		line, next, st := js.readLine(off)
		switch st {
		case recIOError:
			return nil, probes.RunMeta{}, fmt.Errorf("stream %s: %w", js.path, js.ioErr)
		case recIncomplete:
			return nil, probes.RunMeta{}, fmt.Errorf("stream %s: header line is not complete: %w", js.path, ErrIncompleteHeader)
		case recTooLong:
			return nil, probes.RunMeta{}, fmt.Errorf("stream %s: header line longer than %d bytes", js.path, MaxRecordSize)
		}
		off = next
		if len(bytes.TrimSpace(line)) > 0 {
			h, err := parseStreamHeader(line)
			if err != nil {
				return nil, probes.RunMeta{}, fmt.Errorf("stream %s: %v", js.path, err)
			}
			js.start, js.scanned = off, off
			js.writerPID, js.writerHost = h.WriterPID, h.WriterHost
			js.pos = off
			js.meta = h.Meta.Safe()
			if listRanks && len(h.Streams) > 0 {
				js.ranks = newRankMerge(js.path, h.Meta, h.Streams)
				js.meta = js.ranks.meta.Safe()
			}
			js.sm = newStreamMap(h.Meta)
			js.tally = probes.NewStandings(js.meta)
			if h.Alerts != alertsWritten {
				js.layers = h.Meta.Layers
				js.alerts = newStreamAlerts(h.Meta.Layers)
			}
			return js, js.meta, nil
		}
	}
}

// checkOrder notes a frame whose step is not above its variant's previous
// one (a trainer restarted from a checkpoint, or a writer's bug). It is
// kept: the lines are what the trainer wrote.
func (js *streamFile) checkOrder(f *probes.Frame, at, next int64) {
	if js.prevStep == nil {
		js.prevStep = make([]int, len(js.sm.meta.Variants))
	}
	v := f.Variant
	if v < 0 || v >= len(js.prevStep) {
		return
	}
	prev := js.prevStep[v]
	js.prevStep[v] = f.Step
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

// stepDisorder counts this stream's frames out of step order, then every
// other rank's.
func (js *streamFile) stepDisorder() (n int, first string) {
	n, first = js.disorder, js.firstDis
	if js.ranks != nil {
		for _, rs := range js.ranks.ranks {
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

// nextOwn returns the next frame of this file (not of the other ranks).
func (js *streamFile) nextOwn() (probes.Frame, error) {
	for {
		if js.endAt > 0 && js.pos >= js.endAt {
			return probes.Frame{}, io.EOF // after the end line nothing is read (docs/formats.md)
		}
		line, next, st := js.readLine(js.pos)
		switch st {
		case recIncomplete, recIOError:
			return probes.Frame{}, js.stopped(st, "stream")
		case recTooLong:
			js.damaged = append(js.damaged, Damage{Offset: js.pos, Length: next - js.pos, Reason: fmt.Sprintf("line longer than %d bytes", MaxRecordSize)})
			js.pos = next
			continue
		}
		at := js.pos
		js.pos = next
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		f, e, kind, err := js.sm.parseStreamLine(line)
		if err != nil {
			js.damaged = append(js.damaged, Damage{Offset: at, Length: next - at, Reason: err.Error()})
			continue
		}
		if kind == lineEnd {
			js.endLine, js.endAt = &e, next
			continue
		}
		js.checkOrder(&f, at, next)
		if js.alerts != nil { // before the seek target too: the running medians need every frame
			js.alerts.add(&f)
		}
		if int64(f.Step) < js.target {
			continue
		}
		return f, nil
	}
}

// next returns the next frame of this file or, when it lists other ranks,
// the next of all ranks in step order.
func (js *streamFile) next() (probes.Frame, error) {
	var f probes.Frame
	var err error
	if js.ranks == nil {
		f, err = js.nextOwn()
	} else {
		f, err = js.ranks.next(js)
	}
	if err == nil {
		js.tally.Fold(&f)
	}
	return f, err
}

// seek reads again from the first line (a stream has no index), dropping
// frames before step; the derived alerts start again with their medians.
func (js *streamFile) seek(step int) {
	js.pos, js.target = js.start, int64(step)
	clear(js.prevStep)
	if js.alerts != nil {
		js.alerts = newStreamAlerts(js.layers)
	}
	if js.ranks != nil {
		js.ranks.seek(step)
	}
}

// lastStep scans the lines not scanned yet for their steps.
func (js *streamFile) lastStep() (int, bool) {
	var probe struct {
		Step *int            `json:"step"`
		End  json.RawMessage `json:"end"`
	}
	for js.endAt == 0 || js.scanned < js.endAt {
		line, next, st := js.readLine(js.scanned)
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

// end is the stream's end line (all ranks' when it lists others), with
// the final evaluations filled from the frames read.
func (js *streamFile) end() (End, bool) {
	if js.endLine == nil {
		return End{}, false
	}
	e := End{Status: js.endLine.Status, Diverged: map[int]int{}, Final: map[int][]probes.Eval{}}
	for v, s := range js.endLine.Diverged {
		e.Diverged[v] = s
	}
	if js.ranks != nil {
		if !js.ranks.ended(&e) {
			return End{}, false
		}
	}
	for v, evs := range js.tally.FinalEvals() {
		e.Final[v] = evs
	}
	return e.safe(), true
}

// state is this file's state, combined with the other ranks' when it
// lists them.
func (js *streamFile) state() State {
	own := js.ownState()
	if js.ranks == nil {
		return own
	}
	return js.ranks.state(own)
}

// ownState is state for this file alone.
func (js *streamFile) ownState() State {
	if js.endLine != nil {
		return Complete
	}
	return js.writerState(true, js.writerPID, js.writerHost)
}

// moreToRead reports whether whole lines lie after this file's read
// position (before its end line), or after any other rank's.
func (js *streamFile) moreToRead() bool {
	_, _, st := js.readLine(js.pos)
	own := (st == recOK || st == recTooLong) && (js.endAt == 0 || js.pos < js.endAt)
	if js.ranks != nil {
		return js.ranks.moreToRead(own)
	}
	return own
}

// damage is this file's damage, then the other ranks'.
func (js *streamFile) damage() []Damage {
	d := append([]Damage(nil), js.damaged...)
	if js.ranks != nil {
		d = append(d, js.ranks.damage()...)
	}
	return d
}

// stats: a stream has no index records.
func (js *streamFile) stats() []SeriesStat { return nil }

// secondRun: a stream ends at its end line; nothing after it is read.
func (js *streamFile) secondRun() (int64, bool) { return -1, false }

func (js *streamFile) close() {
	if js.ranks != nil {
		js.ranks.close()
	}
}

// openStream opens path as one rank's stream: its header's own list of
// streams is not followed (only the first stream's list counts).
func openStream(path string) (*Reader, error) {
	r, err := open(path, false)
	if err != nil {
		return nil, err
	}
	if _, ok := r.src.(*streamFile); !ok {
		r.Close()
		return nil, fmt.Errorf("%s is a run file, not a stream", path)
	}
	return r, nil
}
