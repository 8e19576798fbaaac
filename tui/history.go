package tui

import (
	"math"
	"unsafe"
)

// bucket summarises consecutive points of a series.
type bucket struct {
	FirstStep, LastStep int
	Min, Max, Last      float64
	Count               int
}

func (b *bucket) merge(o bucket) {
	if o.Count == 0 {
		return
	}
	if b.Count == 0 {
		*b = o
		return
	}
	b.LastStep = o.LastStep
	b.Min = math.Min(b.Min, o.Min)
	b.Max = math.Max(b.Max, o.Max)
	b.Last = o.Last
	b.Count += o.Count
}

// history is a bounded series of (step, value) points. It keeps at most
// capacity buckets; when they are all used, neighbouring buckets are merged
// pairwise and every later bucket covers twice as many points. Memory is
// therefore bounded by the capacity, whatever the run's length (the bucket
// array grows by doubling up to it, so short series stay small), and the
// resolution degrades gracefully (older and newer points alike).
//
// A history is not safe for concurrent use; the TUI owns its histories.
type history struct {
	buckets []bucket
	span    int // points per full bucket
	cap     int
}

// defaultHistoryCapacity is enough for a 240-column chart at two buckets per
// cell.
const defaultHistoryCapacity = 512

// newHistory returns an empty history holding at most capacity buckets
// (rounded up to an even number ≥ 2).
func newHistory(capacity int) *history {
	if capacity < 2 {
		capacity = 2
	}
	capacity += capacity & 1
	return &history{span: 1, cap: capacity}
}

// Add appends one point. NaN values ("not measured") are ignored.
func (h *history) Add(step int, v float64) {
	if math.IsNaN(v) {
		return
	}
	p := bucket{FirstStep: step, LastStep: step, Min: v, Max: v, Last: v, Count: 1}
	if n := len(h.buckets); n > 0 && h.buckets[n-1].Count < h.span {
		h.buckets[n-1].merge(p)
		return
	}
	if len(h.buckets) == h.cap {
		h.compact()
	}
	if len(h.buckets) == cap(h.buckets) {
		h.grow()
	}
	h.buckets = append(h.buckets, p)
}

// grow doubles the bucket array, never past the capacity, so that append
// never over-allocates.
func (h *history) grow() {
	n := min(max(2*cap(h.buckets), 16), h.cap)
	b := make([]bucket, len(h.buckets), n)
	copy(b, h.buckets)
	h.buckets = b
}

// compact merges neighbouring buckets pairwise and doubles the span.
func (h *history) compact() {
	n := len(h.buckets) / 2
	for i := 0; i < n; i++ {
		b := h.buckets[2*i]
		b.merge(h.buckets[2*i+1])
		h.buckets[i] = b
	}
	h.buckets = h.buckets[:n]
	h.span *= 2
}

// Len returns the number of points added (NaNs excluded).
func (h *history) Len() int {
	total := 0
	for i := range h.buckets {
		total += h.buckets[i].Count
	}
	return total
}

// Last returns the most recent point.
func (h *history) Last() (step int, v float64, ok bool) {
	if len(h.buckets) == 0 {
		return 0, 0, false
	}
	b := h.buckets[len(h.buckets)-1]
	return b.LastStep, b.Last, true
}

// Reset drops every point, keeping the allocation.
func (h *history) Reset() {
	h.buckets = h.buckets[:0]
	h.span = 1
}

// View returns at most width buckets covering the whole series, oldest first,
// each merging an equal share of the stored buckets. It allocates one slice of
// at most width entries and touches each stored bucket once; the stored
// buckets are bounded by the capacity, so the cost does not grow with the run.
func (h *history) View(width int) []bucket {
	return h.AppendView(nil, width)
}

// AppendView is View appending to dst (which it grows only when short), so
// that a screen of many charts can reuse one buffer from frame to frame.
func (h *history) AppendView(dst []bucket, width int) []bucket {
	n := len(h.buckets)
	if width <= 0 || n == 0 {
		return dst
	}
	if n <= width {
		return append(dst, h.buckets...)
	}
	for i := 0; i < width; i++ {
		lo, hi := i*n/width, (i+1)*n/width
		var b bucket
		for j := lo; j < hi; j++ {
			b.merge(h.buckets[j])
		}
		dst = append(dst, b)
	}
	return dst
}

// Bytes reports the memory a history holds, for the bounded-memory benchmark.
func (h *history) Bytes() int {
	return int(unsafe.Sizeof(*h)) + cap(h.buckets)*int(unsafe.Sizeof(bucket{}))
}
