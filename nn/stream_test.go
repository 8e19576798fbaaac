package nn

import (
	"math/rand"
	"testing"
)

// TestStreamIsMathRand: a Stream's draws are math/rand's for the same seed,
// through the first 607 (taken from the source) and many cycles of the
// recurrence after them, Int63 and Uint64 interleaved as a caller may mix
// them.
func TestStreamIsMathRand(t *testing.T) {
	for _, seed := range []int64{0, 1, 2, -7, 42, 1 << 40, -1 << 62} {
		s, r := NewStream(seed), rand.New(rand.NewSource(seed))
		for i := 0; i < 20*streamLen+5; i++ {
			if i%5 == 4 {
				if a, b := s.Uint64(), r.Uint64(); a != b {
					t.Fatalf("seed %d, draw %d: Uint64 %d, math/rand %d", seed, i, a, b)
				}
				continue
			}
			if a, b := s.Int63(), r.Int63(); a != b {
				t.Fatalf("seed %d, draw %d: Int63 %d, math/rand %d", seed, i, a, b)
			}
		}
	}
}

// TestStreamFill: fill gives the draws Uint64 would, in blocks of every
// size around the ring's 607 and its 273 lag, starting inside the first
// 607 draws and across the ring's wrap, mixed with single draws.
func TestStreamFill(t *testing.T) {
	s, r := NewStream(9), rand.New(rand.NewSource(9))
	buf := make([]uint64, 2*streamLen+1)
	drawn := 0
	for _, n := range []int{0, 1, 100, 272, 273, 274, 334, 606, 607, 608, 1, 2*streamLen + 1, 5, 333, 1000} {
		s.fill(buf[:n])
		for i, got := range buf[:n] {
			if want := r.Uint64(); got != want {
				t.Fatalf("block of %d after %d draws: [%d] = %d, math/rand %d", n, drawn, i, got, want)
			}
		}
		drawn += n
		if a, b := s.Int63(), r.Int63(); a != b {
			t.Fatalf("single draw after %d draws: %d, math/rand %d", drawn, a, b)
		}
		drawn++
	}
}
