package datasets

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// ImageBatcher hands out fixed-size batches of an ImageSplit, walking a new
// permutation every epoch (see the package documentation).
type ImageBatcher struct {
	split    *ImageSplit
	batch    int
	rowLen   int
	rng      *rand.Rand // nil when not shuffling
	order    []int32
	pos      int   // next index into order
	consumed int64 // rows handed out in all
}

// NewImageBatcher checks the split and prepares the first epoch's order.
func NewImageBatcher(s *ImageSplit, batch int, seed int64, shuffle bool) (*ImageBatcher, error) {
	if s == nil || s.N <= 0 {
		return nil, errors.New("image split is empty")
	}
	if len(s.Y) != s.N || len(s.Pix)%s.N != 0 || len(s.Pix) == 0 {
		return nil, fmt.Errorf("image split is inconsistent: N=%d, %d labels, %d pixels", s.N, len(s.Y), len(s.Pix))
	}
	if batch <= 0 {
		return nil, fmt.Errorf("batch size %d, want ≥ 1", batch)
	}
	if batch > s.N {
		return nil, fmt.Errorf("split has %d images, too few for one batch of %d", s.N, batch)
	}
	b := &ImageBatcher{split: s, batch: batch, rowLen: s.RowLen(), order: make([]int32, s.N)}
	if shuffle {
		b.rng = newRand(seed)
	}
	fillOrder(b.order, b.rng)
	return b, nil
}

// Next fills x (batch×H×W pixels) and y (batch labels) with the next batch.
// epochEnded is true for the batch that hands out an epoch's last row. Wrong
// buffer sizes are a programming error and panic.
func (b *ImageBatcher) Next(x []float32, y []uint8) (epochEnded bool) {
	if len(x) != b.batch*b.rowLen || len(y) != b.batch {
		panic(fmt.Sprintf("datasets: ImageBatcher.Next: got %d pixels and %d labels, want %d×%d and %d", len(x), len(y), b.batch, b.rowLen, b.batch))
	}
	for i := 0; i < b.batch; i++ {
		if b.pos == len(b.order) {
			fillOrder(b.order, b.rng)
			b.pos = 0
		}
		r := int(b.order[b.pos])
		b.split.Scale(x[i*b.rowLen:(i+1)*b.rowLen], r, r+1)
		y[i] = b.split.Y[r]
		b.pos++
		if b.pos == len(b.order) {
			epochEnded = true
		}
	}
	b.consumed += int64(b.batch)
	return epochEnded
}

// Epoch is the number of epochs handed out so far, fractional.
func (b *ImageBatcher) Epoch() float64 {
	return float64(b.consumed) / float64(b.split.N)
}
