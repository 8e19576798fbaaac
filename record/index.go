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

// seriesStat is the per-series summary an index record carries for the
// frames since the previous index record.
type seriesStat struct {
	Count    uint64
	Min, Max float64
}

// indexRec is one index record.
type indexRec struct {
	prev    int64 // offset of the previous index record, -1 for none
	maxStep int64 // running maximum step of the frames before this record
	keys    []keyEntry
	ids     []int // series with Count > 0, ascending
	stats   []seriesStat
}

func (x *indexRec) encode() []byte {
	var e enc
	e.varint(x.prev)
	e.varint(x.maxStep)
	e.uvarint(uint64(len(x.keys)))
	for _, k := range x.keys {
		e.uvarint(uint64(k.off))
		e.varint(k.maxBefore)
	}
	e.uvarint(uint64(len(x.ids)))
	for i, id := range x.ids {
		e.uvarint(uint64(id))
		e.uvarint(x.stats[i].Count)
		e.f64(x.stats[i].Min)
		e.f64(x.stats[i].Max)
	}
	return e.b
}

// decodeIndex parses an index record found at offset at. Keyframe offsets
// must lie before the record and previous links must point backwards, so a
// forged chain cannot loop.
func decodeIndex(p []byte, at int64, nseries int) (indexRec, bool) {
	d := dec{b: p}
	x := indexRec{prev: d.varint(), maxStep: d.varint()}
	n := d.count(2)
	x.keys = make([]keyEntry, n)
	for i := range x.keys {
		off := d.uvarint()
		x.keys[i] = keyEntry{off: int64(off), maxBefore: d.varint()}
		if off >= uint64(at) {
			d.bad = true
		}
	}
	n = d.count(18)
	x.ids = make([]int, n)
	x.stats = make([]seriesStat, n)
	for i := range x.ids {
		id := d.uvarint()
		if id >= uint64(nseries) {
			d.bad = true
		}
		x.ids[i] = int(id)
		x.stats[i] = seriesStat{Count: d.uvarint(), Min: d.f64(), Max: d.f64()}
	}
	if x.prev >= at || x.prev < -1 {
		d.bad = true
	}
	return x, !d.bad
}

// chunkStats accumulates per-series statistics between index records.
type chunkStats struct {
	count    []uint64
	min, max []float64
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
}

// drain moves the accumulated statistics into x and clears them.
func (c *chunkStats) drain(x *indexRec) {
	for id, n := range c.count {
		if n > 0 {
			x.ids = append(x.ids, id)
			x.stats = append(x.stats, seriesStat{n, c.min[id], c.max[id]})
			c.count[id] = 0
		}
	}
}
