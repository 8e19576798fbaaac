package record

import (
	"math"
)

// noStep is the running maximum step before any frame.
const noStep = math.MinInt64

// keyEntry locates one keyframe: its record offset and the largest Step of
// every frame record before it. The running maximum never decreases, so a
// seek binary-searches for the last keyframe whose maxBefore < target:
// every frame with Step ≥ target lies at or after it.
type keyEntry struct {
	off       int64
	maxBefore int64
}

// indexRec is one index record. It stays small (a few hundred bytes), so
// walking the chain of a 1 GB file reads little; the per-series statistics
// live in a separate Stats record it points to.
type indexRec struct {
	prev    int64 // offset of the previous index record, -1 for none
	maxStep int64 // running maximum step of the frames before this record
	statsAt int64 // offset of the Stats record for this chunk, -1 for none
	keys    []keyEntry
}

func (x *indexRec) encode() []byte {
	var e enc
	e.varint(x.prev)
	e.varint(x.maxStep)
	e.varint(x.statsAt)
	e.uvarint(uint64(len(x.keys)))
	for _, k := range x.keys {
		e.uvarint(uint64(k.off))
		e.varint(k.maxBefore)
	}
	return e.b
}

// decodeIndex parses an index record found at offset at. Keyframe offsets
// and the links must lie before the record, so a forged chain cannot loop.
func decodeIndex(p []byte, at int64) (indexRec, bool) {
	d := dec{b: p}
	x := indexRec{prev: d.varint(), maxStep: d.varint(), statsAt: d.varint()}
	n := d.count(2)
	x.keys = make([]keyEntry, n)
	for i := range x.keys {
		off := d.uvarint()
		x.keys[i] = keyEntry{off: int64(off), maxBefore: d.varint()}
		if off >= uint64(at) {
			d.bad = true
		}
	}
	if x.prev >= at || x.prev < -1 || x.statsAt >= at || x.statsAt < -1 {
		d.bad = true
	}
	return x, !d.bad
}

// seriesStat is the per-series summary of the frames between two index
// records.
type seriesStat struct {
	Count    uint64
	Min, Max float64
}

// chunkStats accumulates per-series statistics between index records.
type chunkStats struct {
	count    []uint64
	min, max []float64
	any      bool
}

func newChunkStats(n int) *chunkStats {
	return &chunkStats{count: make([]uint64, n), min: make([]float64, n), max: make([]float64, n)}
}

func (c *chunkStats) add(id int, v float64) {
	if math.IsNaN(v) {
		return
	}
	if c.count[id] == 0 {
		c.min[id], c.max[id] = v, v
	} else if v < c.min[id] {
		c.min[id] = v
	} else if v > c.max[id] {
		c.max[id] = v
	}
	c.count[id]++
	c.any = true
}

// encodeAndClear returns the Stats record payload
// (S:uvarint (series:uvarint count:uvarint min:f64 max:f64)[S]) and clears
// the statistics.
func (c *chunkStats) encodeAndClear() []byte {
	n := 0
	for _, k := range c.count {
		if k > 0 {
			n++
		}
	}
	var e enc
	e.uvarint(uint64(n))
	for id, k := range c.count {
		if k > 0 {
			e.uvarint(uint64(id))
			e.uvarint(k)
			e.f64(c.min[id])
			e.f64(c.max[id])
			c.count[id] = 0
		}
	}
	c.any = false
	return e.b
}

// mergeStats adds a Stats record's payload into m.
func mergeStats(p []byte, nseries int, m map[int]seriesStat) bool {
	d := dec{b: p}
	n := d.count(18)
	for i := 0; i < n; i++ {
		id := d.uvarint()
		s := seriesStat{Count: d.uvarint(), Min: d.f64(), Max: d.f64()}
		if d.bad || id >= uint64(nseries) {
			return false
		}
		if old, seen := m[int(id)]; seen {
			s.Min, s.Max, s.Count = min(s.Min, old.Min), max(s.Max, old.Max), s.Count+old.Count
		}
		m[int(id)] = s
	}
	return !d.bad
}
