package nn

import "math/rand"

// math/rand's generator (rand.NewSource) is an additive lagged Fibonacci
// generator: its outputs obey x[n] = x[n−607] + x[n−273] mod 2⁶⁴ once 607
// of them exist (each output overwrites the oldest of the 607 it keeps,
// with the one written 273 draws before added in).
const (
	streamLen = 607
	streamTap = 273
)

// Stream is the draws of rand.New(rand.NewSource(seed)).Int63(), the same
// values in the same order, made without an interface call per draw: the
// first 607 come from the source itself and are kept, every later one is
// the sum of two kept ones (the generator's own recurrence, on its own
// outputs). Dropout draws one value per entry, millions a step on the
// word LM, where the interface call and the source's bookkeeping were
// most of the mask's cost. TestStreamIsMathRand checks the values against
// math/rand's (whose seeded stream Go keeps fixed: Float64's comment in
// math/rand says so), so a change there fails a test instead of moving masks.
type Stream struct {
	src  rand.Source64
	seen int               // outputs taken from src, up to streamLen
	hist [streamLen]uint64 // the last 607 outputs; hist[pos] the oldest
	pos  int
}

// NewStream is the stream of rand.NewSource(seed).
func NewStream(seed int64) *Stream {
	return newStream(rand.NewSource(seed).(rand.Source64))
}

// newStream is the stream of src, which must be math/rand's generator (or,
// in tests, a source whose first 607 draws are all they read).
func newStream(src rand.Source64) *Stream { return &Stream{src: src} }

// Int63 is the next draw, a non-negative int64 (rand.Rand.Int63's).
func (s *Stream) Int63() int64 {
	return int64(s.Uint64() & (1<<63 - 1))
}

// Uint64 is the next draw's 64 bits (rand.Rand.Uint64's).
func (s *Stream) Uint64() uint64 {
	if s.seen < streamLen {
		x := s.src.Uint64()
		s.hist[s.seen] = x
		s.seen++
		return x
	}
	i := s.pos
	j := i + streamLen - streamTap // x[n−273] sits 334 slots past x[n−607]
	if j >= streamLen {
		j -= streamLen
	}
	x := s.hist[i] + s.hist[j]
	s.hist[i] = x
	if i++; i == streamLen {
		i = 0
	}
	s.pos = i
	return x
}

// fill sets dst to the next len(dst) draws' 64 bits: Uint64 len(dst)
// times, the recurrence in runs where neither index wraps around the
// ring, so the loop is a load, an add and two stores per draw.
func (s *Stream) fill(dst []uint64) {
	for len(dst) > 0 && s.seen < streamLen {
		dst[0] = s.Uint64()
		dst = dst[1:]
	}
	i := s.pos
	j := i + streamLen - streamTap
	if j >= streamLen {
		j -= streamLen
	}
	for len(dst) > 0 {
		n := min(len(dst), streamLen-i, streamLen-j)
		old, tap, out := s.hist[i:i+n], s.hist[j:j+n], dst[:n]
		for t := range out {
			// tap may overlap old's start (j < i): it then reads what this
			// loop wrote 273 draws before, as the recurrence says
			x := old[t] + tap[t]
			old[t] = x
			out[t] = x
		}
		dst = dst[n:]
		if i += n; i == streamLen {
			i = 0
		}
		if j += n; j == streamLen {
			j = 0
		}
	}
	s.pos = i
}
