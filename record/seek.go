package record

import (
	"bytes"
	"encoding/binary"
	"sort"
)

// index is the reader's in-memory copy of the file's index records: every
// keyframe they list, in file order, and where their Stats records are.
type index struct {
	keys      []keyEntry
	last      int64 // offset of the newest index record loaded, -1 for none
	maxStep   int64 // running maximum step at that record
	statsAt   []int64
	statsRead int // statsAt[:statsRead] are merged into stats
	stats     map[int]seriesStat
}

// backScanLimit bounds the backward search for the newest index record in a
// file without a trailer. The writer emits one every indexEvery bytes, so a
// healthy file has one well inside this window.
const backScanLimit = 8 * indexEvery

// readExact reads the record at off with two reads of exactly its header
// and payload, bypassing the sequential read buffer: for the index chain,
// the trailer and other records visited out of order.
func (r *runFile) readExact(off int64) (typ byte, payload []byte, st int) {
	var h [recordHeaderSize]byte
	n, _ := r.f.ReadAt(h[:], off)
	if n < recordHeaderSize {
		m := min(n, 4)
		if !bytes.Equal(h[:m], syncMarker[:m]) {
			return 0, nil, recBad
		}
		return 0, nil, recIncomplete
	}
	typ, size, pcrc, hs := parseRecordHeader(h[:])
	switch hs {
	case hdrBadSync, hdrBadCRC:
		return 0, nil, recBad
	case hdrTooLong:
		return 0, nil, recTooLong
	}
	if cap(r.xbuf) < size {
		r.xbuf = make([]byte, size)
	}
	p := r.xbuf[:size]
	if n, _ := r.f.ReadAt(p, off+recordHeaderSize); n < size {
		return 0, nil, recIncomplete
	}
	if crc32c(p) != pcrc {
		return 0, nil, recBad
	}
	return typ, p, recOK
}

// loadTrailer reads the trailer of a closed run file, and through it the end
// record, so End is known at Open.
func (r *runFile) loadTrailer() {
	st, err := r.f.Stat()
	if err != nil {
		return
	}
	_, endAt, ok := r.trailer(st.Size())
	if !ok {
		return
	}
	if typ, p, rs := r.readExact(endAt); rs == recOK && typ == recEnd {
		if e, ok := decodeEnd(p, r.reg.variants); ok {
			r.endRec = &e
		}
	}
}

// trailer reads the trailer at the end of a file of size bytes and returns
// the offsets of the last index record and of the end record. It is this
// run's only when that index record ends exactly where the trailer begins,
// as Close writes them: the trailer of a second run file appended to this
// one (cat a.ntr b.ntr) holds offsets counted from that file's start, which
// point into this run's records.
func (r *runFile) trailer(size int64) (lastIndex, endAt int64, ok bool) {
	at := size - recordHeaderSize - trailerPayload
	if at < r.dataStart {
		return 0, 0, false
	}
	typ, p, rs := r.readExact(at)
	if rs != recOK || typ != recTrailer || len(p) != trailerPayload {
		return 0, 0, false
	}
	lastIndex = int64(binary.LittleEndian.Uint64(p[:8]))
	endAt = int64(binary.LittleEndian.Uint64(p[8:]))
	if lastIndex < r.dataStart || lastIndex >= at || endAt < r.dataStart || endAt >= lastIndex {
		return 0, 0, false
	}
	typ, p, rs = r.readExact(lastIndex)
	if rs != recOK || typ != recIndex || lastIndex+recordHeaderSize+int64(len(p)) != at {
		return 0, 0, false
	}
	return lastIndex, endAt, true
}

// lastIndexOffset finds the newest index record: through the trailer when
// the file was closed, else by scanning backwards from the end.
func (r *runFile) lastIndexOffset() int64 {
	st, err := r.f.Stat()
	if err != nil {
		return -1
	}
	size := st.Size()
	if !r.ignoreTrailer {
		if li, _, ok := r.trailer(size); ok {
			return li
		}
	}
	// Backward scan, one window at a time, newest marker first. A
	// candidate's header is checked in the window; only an index record's
	// payload is read and verified.
	hi := size
	var w []byte
	for hi > r.dataStart && size-hi < backScanLimit {
		lo := max(r.dataStart, hi-readChunk)
		if cap(w) < int(hi-lo) {
			w = make([]byte, hi-lo)
		}
		n, _ := r.f.ReadAt(w[:hi-lo], lo)
		win := w[:n]
		for end := len(win); end > 0; {
			i := bytes.LastIndex(win[:end], syncMarker[:])
			if i < 0 {
				break
			}
			end = i + len(syncMarker) - 1
			if i+recordHeaderSize <= len(win) {
				if typ, _, _, hs := parseRecordHeader(win[i : i+recordHeaderSize]); hs != hdrOK || typ != recIndex {
					continue
				}
			}
			if r.indexLinksHold(lo + int64(i)) {
				return lo + int64(i)
			}
		}
		if lo == r.dataStart {
			break
		}
		// Overlap windows by a marker length so none is split unseen.
		hi = lo + int64(len(syncMarker)) - 1
	}
	return -1
}

// indexLinksHold reports whether the record at off is an index record whose
// links land on records of the kinds they name: its previous index record
// and frame records that start with a keyframe. An index record of a second
// run file appended to this one (cat a.ntr b.ntr) holds offsets counted from
// that file's start, which land between this run's records. (Only the
// newest index record found by the backward scan is checked, about 16
// reads per MiB of frames it covers.)
func (r *runFile) indexLinksHold(off int64) bool {
	typ, p, rs := r.readExact(off)
	if rs != recOK || typ != recIndex {
		return false
	}
	x, ok := decodeIndex(p, off)
	if !ok {
		return false
	}
	if x.prev >= 0 {
		if typ, _, rs := r.readExact(x.prev); rs != recOK || typ != recIndex {
			return false
		}
	}
	for _, k := range x.keys {
		typ, p, rs := r.readExact(k.off)
		if rs != recOK || typ != recFrame {
			return false
		}
		key := false
		frameHeads(p, func(first, isKey bool, _ int) { key = key || first && isKey })
		if !key {
			return false
		}
	}
	return true
}

// refreshIndex loads index records newer than those already loaded by
// walking the backward chain from the newest one.
func (r *runFile) refreshIndex() {
	if r.idx.stats == nil {
		r.idx.stats = map[int]seriesStat{}
		r.idx.last = -1
		r.idx.maxStep = noStep
	}
	newest := r.lastIndexOffset()
	if newest <= r.idx.last {
		return
	}
	var recs []indexRec
	for at := newest; at > r.idx.last; {
		typ, p, rs := r.readExact(at)
		if rs != recOK || typ != recIndex {
			break // broken chain: older keyframes stay unknown; seeks there scan forward
		}
		x, ok := decodeIndex(p, at)
		if !ok {
			break
		}
		recs = append(recs, x)
		at = x.prev
	}
	if len(recs) == 0 {
		return
	}
	for i := len(recs) - 1; i >= 0; i-- {
		for _, k := range recs[i].keys {
			if k.off > r.idx.lastKeyOff() {
				r.idx.keys = append(r.idx.keys, k)
			}
		}
		if sa := recs[i].statsAt; sa >= 0 && (len(r.idx.statsAt) == 0 || sa > r.idx.statsAt[len(r.idx.statsAt)-1]) {
			r.idx.statsAt = append(r.idx.statsAt, sa)
		}
	}
	r.idx.last, r.idx.maxStep = newest, recs[0].maxStep
}

func (x *index) lastKeyOff() int64 {
	if len(x.keys) == 0 {
		return -1
	}
	return x.keys[len(x.keys)-1].off
}

// seek finds, through the index records, the last keyframe before which
// every step is < step (a binary search), then scans forward only through
// the part of the file written after the newest index record.
func (r *runFile) seek(step int) {
	target := int64(step)
	r.refreshIndex()
	start := keyEntry{off: r.dataStart, maxBefore: noStep}
	i := sort.Search(len(r.idx.keys), func(i int) bool { return r.idx.keys[i].maxBefore >= target })
	if i > 0 {
		start = r.idx.keys[i-1]
	}
	if i == len(r.idx.keys) {
		start = r.scanKeyframes(start, target)
	}
	r.pos, r.target, r.needKey = start.off, target, true
	r.inDamage, r.pend = false, nil
}

// scanKeyframes walks records forward from the keyframe from (reading only
// the first bytes of each frame payload) and returns the last keyframe
// before which every step is < target.
func (r *runFile) scanKeyframes(from keyEntry, target int64) keyEntry {
	best := from
	running := from.maxBefore
	for at := from.off; ; {
		typ, p, st := r.readRecord(at)
		size := len(p)
		switch st {
		case recIncomplete, recIOError:
			return best
		case recBad, recTooLong:
			next, found := r.scanSync(at + 1)
			if !found {
				return best
			}
			at = next
			continue
		}
		if typ == recHeader { // another run file begins: not this run's frames
			return best
		}
		if typ == recFrame {
			frameHeads(p, func(first, key bool, step int) {
				if first && key && running < target {
					best = keyEntry{off: at, maxBefore: running}
				}
				running = max(running, int64(step))
			})
			if running >= target {
				return best
			}
		}
		at += recordHeaderSize + int64(size)
	}
}

// frameHeads calls fn with the keyframe flag and step of each frame in a
// frame record's payload, without decoding the frames.
func frameHeads(p []byte, fn func(first, key bool, step int)) {
	for first := true; len(p) > 0; first = false {
		n, k := binary.Uvarint(p)
		if k <= 0 || n > uint64(len(p)-k) {
			return
		}
		key, _, step, ok := peekFrame(p[k : k+int(n)])
		if !ok {
			return
		}
		fn(first, key, step)
		p = p[k+int(n):]
	}
}

// lastStep takes the largest step from the index up to the newest index
// record and scans the records after it, reading only each frame's head.
func (r *runFile) lastStep() (step int, ok bool) {
	r.refreshIndex()
	at, running := r.dataStart, int64(noStep)
	if n := len(r.idx.keys); n > 0 {
		at, running = r.idx.keys[n-1].off, r.idx.keys[n-1].maxBefore
	}
	for {
		typ, p, st := r.readRecord(at)
		size := len(p)
		switch st {
		case recIncomplete, recIOError:
			return int(running), running != noStep
		case recBad, recTooLong:
			next, found := r.scanSync(at + 1)
			if !found {
				return int(running), running != noStep
			}
			at = next
			continue
		}
		if typ == recHeader { // another run file begins: not this run's frames
			return int(running), running != noStep
		}
		if typ == recFrame {
			frameHeads(p, func(_, _ bool, s int) { running = max(running, int64(s)) })
		}
		at += recordHeaderSize + int64(size)
	}
}

// SeriesStat summarises one probe series over the indexed part of a run
// file (everything before the newest index record).
type SeriesStat struct {
	Variant, Layer int
	Probe          string // probe name as stored in the file
	Count          uint64
	Min, Max       float64
}

// stats merges the stats records the index lists, each read once.
func (r *runFile) stats() []SeriesStat {
	r.refreshIndex()
	for ; r.idx.statsRead < len(r.idx.statsAt); r.idx.statsRead++ {
		if typ, p, rs := r.readExact(r.idx.statsAt[r.idx.statsRead]); rs == recOK && typ == recStats {
			mergeStats(p, len(r.reg.series), r.idx.stats)
		}
	}
	ids := make([]int, 0, len(r.idx.stats))
	for id := range r.idx.stats {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	out := make([]SeriesStat, 0, len(ids))
	for _, id := range ids {
		k, s := r.reg.series[id], r.idx.stats[id]
		out = append(out, SeriesStat{k.Variant, k.Layer, k.Name, s.Count, s.Min, s.Max})
	}
	return out
}
