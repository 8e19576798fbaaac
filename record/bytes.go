package record

import (
	"encoding/binary"
	"math"
)

// enc appends byte-aligned fields.
type enc struct{ b []byte }

func (e *enc) u8(v byte)        { e.b = append(e.b, v) }
func (e *enc) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) u64(v uint64)     { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) f64(v float64)    { e.u64(math.Float64bits(v)) }
func (e *enc) str(s string) {
	e.uvarint(uint64(len(s)))
	e.b = append(e.b, s...)
}

// dec reads byte-aligned fields with bounds checks: any overrun sets bad and
// returns zero values, so malformed payloads never panic or over-allocate.
type dec struct {
	b   []byte
	bad bool
}

func (d *dec) u8() byte {
	if len(d.b) < 1 {
		d.bad = true
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *dec) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if !d.advance(n) {
		return 0
	}
	return v
}

func (d *dec) varint() int64 {
	v, n := binary.Varint(d.b)
	if !d.advance(n) {
		return 0
	}
	return v
}

// advance drops the n bytes a varint took, or marks d bad when n ≤ 0
// (encoding/binary's "too short" or "overflow").
func (d *dec) advance(n int) bool {
	if n <= 0 {
		d.bad = true
		return false
	}
	d.b = d.b[n:]
	return true
}

// count reads a uvarint element count and checks that at least minSize bytes
// per element remain, so a forged count cannot make the caller allocate more
// than the payload could describe.
func (d *dec) count(minSize int) int {
	v := d.uvarint()
	if d.bad {
		return 0
	}
	if minSize < 1 {
		minSize = 1
	}
	if v > uint64(len(d.b)/minSize) {
		d.bad = true
		return 0
	}
	return int(v)
}

func (d *dec) u64() uint64 {
	if len(d.b) < 8 {
		d.bad = true
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *dec) f64() float64 { return math.Float64frombits(d.u64()) }

func (d *dec) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad = true
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// int reads a zigzag varint that must fit in an int.
func (d *dec) int() int {
	v := d.varint()
	if int64(int(v)) != v {
		d.bad = true
		return 0
	}
	return int(v)
}
