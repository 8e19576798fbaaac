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

// xorState is the Gorilla predictor of one series: the previous value and
// the previous window of meaningful bits.
type xorState struct {
	prev     uint64
	lead     uint8
	sigbits  uint8 // 0 = no window yet
	_padding [6]byte
}

// putXOR encodes v against the series state s (Gorilla, Pelkonen et al. 2015,
// with 6-bit leading-zero and length fields):
//
//	0                      same bits as the previous value
//	1 0 <sig bits>          XOR fits in the previous window
//	1 1 <lead:6> <sig-1:6> <sig bits>   new window
func putXOR(w *bitWriter, s *xorState, v uint64) {
	x := v ^ s.prev
	s.prev = v
	if x == 0 {
		w.writeBits(0, 1)
		return
	}
	lead := uint8(bits.LeadingZeros64(x))
	trail := uint8(bits.TrailingZeros64(x))
	if s.sigbits != 0 && lead >= s.lead && trail >= 64-s.lead-s.sigbits {
		w.writeBits(0b10, 2)
		w.writeBits(x>>(64-s.lead-s.sigbits), uint(s.sigbits))
		return
	}
	sig := 64 - lead - trail
	s.lead, s.sigbits = lead, sig
	w.writeBits(0b11, 2)
	w.writeBits(uint64(lead), 6)
	w.writeBits(uint64(sig-1), 6)
	w.writeBits(x>>trail, uint(sig))
}

// getXOR is putXOR's inverse.
func getXOR(r *bitReader, s *xorState) uint64 {
	if !r.readBit() {
		return s.prev
	}
	if !r.readBit() {
		if s.sigbits == 0 {
			r.bad = true
			return 0
		}
		x := r.readBits(uint(s.sigbits)) << (64 - s.lead - s.sigbits)
		s.prev ^= x
		return s.prev
	}
	lead := uint8(r.readBits(6))
	sig := uint8(r.readBits(6)) + 1
	if int(lead)+int(sig) > 64 {
		r.bad = true
		return 0
	}
	s.lead, s.sigbits = lead, sig
	x := r.readBits(uint(sig)) << (64 - lead - sig)
	s.prev ^= x
	return s.prev
}
