package record

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/normtop/normtop/probes"
)

// batchBytes seals a frame record once this many bytes of frames are
// pending.
const batchBytes = 16 << 10

// flushEvery bounds how long a written Frame may sit in the writer's buffer
// before followers can see it (they poll; the contract is 1 s end to end).
// A variable only so that tests can switch the timer off.
var flushEvery = 200 * time.Millisecond

// flushFrames bounds how many Frames may sit in the writer's buffer. The
// timer alone does not hold its bound under load: a starved flusher
// goroutine let 418 ms of frames wait (and die with a SIGKILL). So Write
// itself flushes every flushFrames frames, and whenever flushEvery has
// passed since the last flush, on the goroutine that is writing anyway.
const flushFrames = 64

// Writer appends Frames to a run file. Write, Flush and Close may be called
// from different goroutines (calls are serialised); Write flushes every
// flushFrames frames or flushEvery, and a background goroutine flushes
// buffered records every flushEvery when no Write comes.
type Writer struct {
	mu     sync.Mutex
	path   string
	f      *os.File
	bw     *bufio.Writer
	off    int64 // file offset of the next byte written
	reg    *registry
	codec  *codec
	err    error // sticky I/O error
	closed bool
	dirty  bool

	unflushed int       // frames written since the last flush
	flushedAt time.Time // when the buffer was last flushed
	stop      chan struct{}
	done      chan struct{}

	// The path check while the run is written (pathcheck.go): what to call
	// the first time the path is found not to name the file (under mu), and
	// the flusher's own note of when it last looked and whether it has said so.
	onPathLost    func(why string)
	pathCheckedAt time.Time
	pathLostSaid  bool

	scratch    []byte
	rec        []byte
	batch      []byte // frames not yet sealed into a record: (len:uvarint payload)*
	batchN     int
	sinceKey   int64 // frame bytes since the last keyframe; -1 forces one
	recsSince  int   // frame records sealed since the last keyframe
	sinceIndex int64
	lastIndex  int64
	maxStep    int64
	keys       []keyEntry
	stats      *chunkStats
	standings  *probes.Standings  // the Frames written, folded once each; Close draws End from it
	hist       *probes.HistLayout // the run's histogram bins (nil: none), which every Frame.Hists must fit
	values     int64              // probe values written
	frameBytes int64              // bytes of frame records written
}

// headerJSON is the header record's payload.
type headerJSON struct {
	FormatVersion int            `json:"format_version"`
	Meta          probes.RunMeta `json:"meta"`
	Created       time.Time      `json:"created"`
	WriterPID     int            `json:"writer_pid"`
	WriterHost    string         `json:"writer_host,omitempty"`
}

// Create creates the run file at path (its parent directories too) and
// writes the header and the series registry. It fails if the file exists:
// a run file has exactly one writer.
func Create(path string, meta probes.RunMeta) (*Writer, error) {
	if len(meta.Variants) == 0 {
		return nil, fmt.Errorf("run file %s: the run has no variants", path)
	}
	if seriesOver(len(meta.Variants), len(meta.Layers), int(probes.NumProbes)) {
		return nil, fmt.Errorf("run file %s: %w", path, seriesError(len(meta.Variants), len(meta.Layers), int(probes.NumProbes)))
	}
	if h := meta.Histogram; h != nil {
		if err := h.Check(); err != nil {
			return nil, fmt.Errorf("run file %s: %v", path, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("run file %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644) // read back by saveLost
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, existsError(path)
		}
		return nil, fmt.Errorf("run file %s: %w", path, err)
	}
	// The lock only tells readers that the run is alive (State). Where the
	// file system has no OFD locks the run is still recorded; readers then
	// see Unterminated instead of Writing while it runs.
	_ = lockWriter(f)
	fail := func(err error) (*Writer, error) {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	host, _ := os.Hostname()
	hdr, err := json.Marshal(headerJSON{FormatVersion, meta, time.Now().UTC(), os.Getpid(), host})
	if err != nil {
		return fail(fmt.Errorf("run file %s: encoding header: %w", path, err))
	}
	if len(hdr) > MaxHeaderSize {
		return fail(fmt.Errorf("run file %s: run configuration is %d bytes, over the %d-byte header limit", path, len(hdr), MaxHeaderSize))
	}
	reg := newRegistry(meta)
	w := &Writer{
		path: path, f: f, bw: bufio.NewWriterSize(f, 256<<10), reg: reg, codec: newCodec(reg),
		sinceKey: -1, lastIndex: -1, maxStep: noStep, stats: newChunkStats(len(reg.series)), standings: probes.NewStandings(meta), hist: meta.Histogram,
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	buf := appendPrelude(nil)
	regb := reg.encode()
	buf = appendRecord(buf, recHeader, hdr)
	buf = appendRecord(buf, recRegistry, regb)
	buf = appendRecord(buf, recHeadCopy, appendHeadCopy(nil, hdr, regb))
	w.put(buf)
	if err := w.flushLocked(); err != nil {
		return fail(err)
	}
	go w.flusher()
	return w, nil
}

func (w *Writer) flusher() {
	defer close(w.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case now := <-t.C:
			w.mu.Lock()
			if w.dirty && w.err == nil {
				w.flushLocked()
			}
			w.mu.Unlock()
			w.checkPath(now)
		}
	}
}

// put buffers bytes; I/O errors become sticky.
func (w *Writer) put(b []byte) {
	if w.err != nil {
		return
	}
	if _, err := w.bw.Write(b); err != nil {
		w.err = fmt.Errorf("run file %s: %w", w.path, err)
		return
	}
	w.off += int64(len(b))
	w.dirty = true
}

func (w *Writer) flushLocked() error {
	w.sealBatch()
	if w.err != nil {
		return w.err
	}
	if err := w.bw.Flush(); err != nil {
		w.err = fmt.Errorf("run file %s: %w", w.path, err)
	}
	w.dirty = false
	w.unflushed, w.flushedAt = 0, time.Now()
	return w.err
}

// Write appends one Frame. It fails on a Frame that does not fit the run
// (variant or layer count out of range), after Close, or after an I/O error.
func (w *Writer) Write(f probes.Frame) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("run file %s: write after Close", w.path)
	}
	if w.err != nil {
		return w.err
	}
	if f.Variant < 0 || f.Variant >= w.reg.variants {
		return fmt.Errorf("run file %s: frame variant %d, the run has %d: %w", w.path, f.Variant, w.reg.variants, errFrameInvalid)
	}
	if len(f.Layers) > w.reg.layers {
		return fmt.Errorf("run file %s: frame has %d layers, the run has %d: %w", w.path, len(f.Layers), w.reg.layers, errFrameInvalid)
	}
	if !f.Batch.Valid() {
		return fmt.Errorf("run file %s: frame of step %d has batch %d×%d with %d tokens, not a batch: %w", w.path, f.Step, f.Batch.Rows, f.Batch.Width, f.Batch.Tokens, errFrameInvalid)
	}
	if err := probes.CheckHists(f.Hists, w.hist, w.reg.layers); err != nil {
		return fmt.Errorf("run file %s: frame of step %d: %v: %w", w.path, f.Step, err, errFrameInvalid)
	}
	pending := int64(len(w.batch))
	key := w.sinceKey < 0 || w.sinceKey+pending >= keyframeEvery ||
		keyframeRecords > 0 && pending == 0 && w.recsSince >= keyframeRecords
	var n int
	w.scratch, n = w.codec.encode(w.scratch[:0], &f, key)
	if len(w.scratch) > MaxRecordSize-binary.MaxVarintLen64 {
		// The codec state already moved; force a keyframe so the next
		// frame does not depend on this one.
		w.sinceKey = -1
		return fmt.Errorf("run file %s: frame of step %d is %d bytes, over the %d-byte record limit: %w", w.path, f.Step, len(w.scratch), MaxRecordSize, errFrameInvalid)
	}
	if key {
		// A keyframe opens a record, so decoding can start at the offset
		// the index gives.
		w.sealBatch()
		w.keys = append(w.keys, keyEntry{off: w.off, maxBefore: w.maxStep})
		w.sinceKey, w.recsSince = 0, 0
	} else if len(w.batch)+len(w.scratch)+binary.MaxVarintLen64 > MaxRecordSize {
		w.sealBatch()
	}
	w.batch = binary.AppendUvarint(w.batch, uint64(len(w.scratch)))
	w.batch = append(w.batch, w.scratch...)
	w.batchN++
	w.dirty = true
	w.values += int64(n)
	if int64(f.Step) > w.maxStep {
		w.maxStep = int64(f.Step)
	}
	for l := range f.Layers {
		base := w.reg.id(f.Variant, l, 0)
		for p, x := range f.Layers[l] {
			if math.Float64bits(x) != canonicalNaN {
				w.stats.add(base+p, x)
			}
		}
	}
	w.standings.Fold(&f)
	if len(w.batch) >= batchBytes {
		w.sealBatch()
	}
	if w.sinceIndex+int64(len(w.batch)) >= indexEvery {
		w.writeIndex()
	}
	if w.unflushed++; w.unflushed >= flushFrames || time.Since(w.flushedAt) >= flushEvery {
		w.flushLocked()
	}
	return w.err
}

// sealBatch writes the pending frames as one frame record. Frames written
// in a burst share a record and its 17-byte framing; Flush, the background
// flush, keyframes, index records and Close seal the batch, so a follower
// sees a frame within flushEvery and a crash loses only what was not yet
// flushed (as with any buffered writer).
func (w *Writer) sealBatch() {
	if w.batchN == 0 {
		return
	}
	w.rec = appendRecord(w.rec[:0], recFrame, w.batch)
	w.put(w.rec)
	w.sinceKey += int64(len(w.rec))
	w.recsSince++
	w.sinceIndex += int64(len(w.rec))
	w.frameBytes += int64(len(w.rec))
	w.batch, w.batchN = w.batch[:0], 0
}

// writeIndex writes an index record for the keyframes and statistics since
// the previous one.
func (w *Writer) writeIndex() {
	w.sealBatch()
	x := indexRec{prev: w.lastIndex, maxStep: w.maxStep, statsAt: -1, keys: w.keys}
	if w.stats.any {
		x.statsAt = w.off
		w.rec = appendRecord(w.rec[:0], recStats, w.stats.encodeAndClear())
		w.put(w.rec)
	}
	at := w.off
	w.rec = appendRecord(w.rec[:0], recIndex, x.encode())
	w.put(w.rec)
	w.lastIndex = at
	w.keys = w.keys[:0]
	w.sinceIndex = 0
}

// Flush writes buffered records to the file.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

// Stats reports the probe values and frame-record bytes written so far.
func (w *Writer) Stats() (values, bytes int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.values, w.frameBytes
}

// Standings is where each variant stands after the Frames written so far,
// each folded once as Write took it (a Frame Write refused is not in it):
// the one fold of the lossless path, which Close's end record and the
// recorder's exit status draw from. Read it from the goroutine that calls
// Write, or after the last Write returned.
func (w *Writer) Standings() *probes.Standings { return w.standings }

// Close writes the end record, a last index record and the trailer, syncs
// and closes the file. When the path no longer names the file written
// (deleted, its directory removed, another file renamed over it), the
// recording is copied to a recovery file and Close returns a *LostError.
// Diverged and Final are filled from the written Frames when nil; an empty
// Status means StatusCompleted.
func (w *Writer) Close(end End) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return fmt.Errorf("run file %s: already closed", w.path)
	}
	w.closed = true
	w.mu.Unlock()
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if end.Status == "" {
		end.Status = StatusCompleted
	}
	if end.Diverged == nil {
		end.Diverged = w.standings.DivergedSteps()
	}
	if end.Final == nil {
		end.Final = w.standings.FinalEvals()
	}
	p := end.encode()
	if len(p) > MaxRecordSize {
		p = (&End{Status: end.Status, Diverged: end.Diverged}).encode()
	}
	w.sealBatch()
	endAt := w.off
	w.put(appendRecord(nil, recEnd, p))
	w.writeIndex()
	var t [trailerPayload]byte
	binary.LittleEndian.PutUint64(t[:8], uint64(w.lastIndex))
	binary.LittleEndian.PutUint64(t[8:], uint64(endAt))
	w.put(appendRecord(nil, recTrailer, t[:]))
	err := w.flushLocked()
	if err == nil {
		if serr := w.f.Sync(); serr != nil {
			err = fmt.Errorf("run file %s: %w", w.path, serr)
		}
	}
	if why := pathLost(w.path, w.f); why != "" {
		// The name shows nothing or another file: saying "run file X"
		// would point at a recording that is not there.
		lost := saveLost(w.path, why, w.f, w.off)
		w.f.Close()
		return lost
	}
	if cerr := w.f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("run file %s: %w", w.path, cerr)
	}
	return err
}

// existsError is Create's error for a path that is taken. It satisfies
// errors.Is(err, fs.ErrExist) so callers can pick another name.
type existsError string

func (e existsError) Error() string {
	return fmt.Sprintf("run file %s already exists; choose another path (a run file has one writer)", string(e))
}

func (e existsError) Is(target error) bool { return target == fs.ErrExist }
