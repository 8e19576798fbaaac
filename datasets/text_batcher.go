package datasets

import (
	"fmt"
	"math/rand/v2"
)

// TextBatcher hands out batches of (input, next-token target) windows from a
// token sequence, walking a shuffled list of window starts per epoch (see the
// package documentation).
type TextBatcher struct {
	tokens   []int32
	batch    int
	seqLen   int
	rng      *rand.Rand // nil when not shuffling
	order    []int32    // window indices for this epoch
	offset   int        // this epoch's phase: window k starts at offset+k*seqLen
	slack    int        // largest offset that keeps len(order) windows
	pos      int
	consumed int64 // windows handed out in all
}

// checkTextBatch tells whether n tokens hold one batch of batch distinct
// windows of seqLen inputs plus one target.
func checkTextBatch(n, batch, seqLen int) error {
	if batch <= 0 || seqLen <= 0 {
		return fmt.Errorf("batch %d×%d, want both ≥ 1", batch, seqLen)
	}
	if need := batch*seqLen + 1; n < need {
		return fmt.Errorf("too short for one batch of %d×%d: %d tokens, need at least %d", batch, seqLen, n, need)
	}
	return nil
}

// NewTextBatcher checks that tokens hold at least one batch of batch windows
// of seqLen (+1 for the target) and prepares the first epoch.
func NewTextBatcher(tokens []int32, batch, seqLen int, seed int64, shuffle bool) (*TextBatcher, error) {
	if err := checkTextBatch(len(tokens), batch, seqLen); err != nil {
		return nil, err
	}
	windows := (len(tokens) - 1) / seqLen
	b := &TextBatcher{
		tokens: tokens, batch: batch, seqLen: seqLen,
		order: make([]int32, windows),
		slack: len(tokens) - 1 - windows*seqLen,
	}
	if shuffle {
		b.rng = newRand(seed)
	}
	b.newEpoch()
	return b, nil
}

func (b *TextBatcher) newEpoch() {
	fillOrder(b.order, b.rng)
	b.offset = 0
	if b.rng != nil {
		b.offset = b.rng.IntN(b.slack + 1)
	}
	b.pos = 0
}

// Next fills in and target (batch×seqLen each, row-major): target is in
// shifted by one token. epochEnded is true for the batch that hands out an
// epoch's last window. Wrong buffer sizes are a programming error and panic.
func (b *TextBatcher) Next(in, target []int32) (epochEnded bool) {
	n := b.batch * b.seqLen
	if len(in) != n || len(target) != n {
		panic(fmt.Sprintf("datasets: TextBatcher.Next: got %d inputs and %d targets, want %d×%d each", len(in), len(target), b.batch, b.seqLen))
	}
	for i := 0; i < b.batch; i++ {
		if b.pos == len(b.order) {
			b.newEpoch()
		}
		start := b.offset + int(b.order[b.pos])*b.seqLen
		copy(in[i*b.seqLen:(i+1)*b.seqLen], b.tokens[start:start+b.seqLen])
		copy(target[i*b.seqLen:(i+1)*b.seqLen], b.tokens[start+1:start+1+b.seqLen])
		b.pos++
		if b.pos == len(b.order) {
			epochEnded = true
		}
	}
	b.consumed += int64(b.batch)
	return epochEnded
}

// Epoch is the number of epochs handed out so far, fractional.
func (b *TextBatcher) Epoch() float64 {
	return float64(b.consumed) / float64(len(b.order))
}
