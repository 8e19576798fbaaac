package record

import (
	"math"

	"github.com/normtop/normtop/probes"
)

// The batch shape of a frame (probes.BatchShape), flag flagBatch: three
// uvarints after the frame's bit-packed part. At the end of the frame an
// older reader, which knows neither the flag nor the bytes, decodes
// everything before them as it always did and never reaches them, so the
// addition needs no version bump (docs/formats.md "Frames").

// batch appends s (rows, width, tokens).
func (e *enc) batch(s probes.BatchShape) {
	e.uvarint(uint64(s.Rows))
	e.uvarint(uint64(s.Width))
	e.uvarint(uint64(s.Tokens))
}

// batch reads what enc.batch wrote; a count that does not fit an int or a
// shape that is not a batch (probes.BatchShape.Valid) marks d bad.
func (d *dec) batch() probes.BatchShape {
	var v [3]int
	for i := range v {
		x := d.uvarint()
		if x > math.MaxInt {
			d.bad = true
			return probes.BatchShape{}
		}
		v[i] = int(x)
	}
	s := probes.BatchShape{Rows: v[0], Width: v[1], Tokens: v[2]}
	if d.bad || !s.Valid() {
		d.bad = true
		return probes.BatchShape{}
	}
	return s
}
