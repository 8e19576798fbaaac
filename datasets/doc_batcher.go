package datasets

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// DocBatcher hands out batches of labelled documents, one per row: the
// first seqLen tokens, right-padded with <pad>.
type DocBatcher struct {
	docs     []Doc
	batch    int
	seqLen   int
	rng      *rand.Rand // nil when not shuffling
	order    []int32
	pos      int
	consumed int64
}

// NewDocBatcher checks its arguments and prepares the first epoch. It needs
// at least batch documents, each with at least one token.
func NewDocBatcher(docs []Doc, batch, seqLen int, seed int64, shuffle bool) (*DocBatcher, error) {
	if batch <= 0 || seqLen <= 0 {
		return nil, fmt.Errorf("document batch %d×%d, want both ≥ 1", batch, seqLen)
	}
	if len(docs) == 0 {
		return nil, errors.New("no documents")
	}
	if len(docs) < batch {
		return nil, fmt.Errorf("%d documents, too few for one batch of %d", len(docs), batch)
	}
	for i, d := range docs {
		if len(d.Tokens) == 0 {
			return nil, fmt.Errorf("document %d has no tokens", i)
		}
		if d.Label < 0 {
			return nil, fmt.Errorf("document %d has label %d", i, d.Label)
		}
		for _, id := range d.Tokens {
			if id < 0 || id == PadID {
				return nil, fmt.Errorf("document %d holds token id %d (want ids ≥ 1; <pad> is added by the batcher)", i, id)
			}
		}
	}
	b := &DocBatcher{docs: docs, batch: batch, seqLen: seqLen, order: make([]int32, len(docs))}
	if shuffle {
		b.rng = newRand(seed)
	}
	fillOrder(b.order, b.rng)
	return b, nil
}

// Next fills in and real (batch×seqLen) and labels (batch). Row r holds a
// document's first seqLen tokens, then <pad> (0) with real false. Batches
// wrap across epochs as SentenceBatcher's do. Wrong buffer sizes panic.
func (b *DocBatcher) Next(in []int32, real []bool, labels []int32) {
	n := b.batch * b.seqLen
	if len(in) != n || len(real) != n || len(labels) != b.batch {
		panic(fmt.Sprintf("datasets: DocBatcher.Next: got %d inputs, %d flags and %d labels, want %d×%d, %d×%d and %d", len(in), len(real), len(labels), b.batch, b.seqLen, b.batch, b.seqLen, b.batch))
	}
	for r := 0; r < b.batch; r++ {
		if b.pos == len(b.order) {
			fillOrder(b.order, b.rng)
			b.pos = 0
		}
		d := b.docs[b.order[b.pos]]
		fillDocRow(in[r*b.seqLen:(r+1)*b.seqLen], real[r*b.seqLen:(r+1)*b.seqLen], d.Tokens)
		labels[r] = int32(d.Label)
		b.pos++
	}
	b.consumed += int64(b.batch)
}

func fillDocRow(in []int32, real []bool, tokens []int32) {
	k := copy(in, tokens)
	for i := range in {
		real[i] = i < k
		if i >= k {
			in[i] = PadID
		}
	}
}

// Epoch is the number of epochs handed out so far, fractional.
func (b *DocBatcher) Epoch() float64 {
	return float64(b.consumed) / float64(len(b.docs))
}

// StepsPerEpoch is ceil(documents / batch).
func (b *DocBatcher) StepsPerEpoch() int {
	return (len(b.docs) + b.batch - 1) / b.batch
}

// DocBatch is one fixed evaluation batch, laid out as DocBatcher.Next lays
// out its buffers; rows past Rows are all padding with label -1.
type DocBatch struct {
	In     []int32
	Real   []bool
	Labels []int32
	Rows   int
}

// DocEvalBatches cuts all of docs, in order, into fixed batches; the last
// batch's unused rows are padding (Real all false, label -1), so every
// document counts exactly once.
func DocEvalBatches(docs []Doc, batch, seqLen int) ([]DocBatch, error) {
	if _, err := NewDocBatcher(docs, 1, seqLen, 0, false); err != nil {
		return nil, err
	}
	if batch <= 0 {
		return nil, fmt.Errorf("document batch %d×%d, want both ≥ 1", batch, seqLen)
	}
	var out []DocBatch
	for i := 0; i < len(docs); i += batch {
		db := DocBatch{In: make([]int32, batch*seqLen), Real: make([]bool, batch*seqLen), Labels: make([]int32, batch)}
		for r := range batch {
			var toks []int32
			db.Labels[r] = -1
			if i+r < len(docs) {
				toks = docs[i+r].Tokens
				db.Labels[r] = int32(docs[i+r].Label)
				db.Rows++
			}
			fillDocRow(db.In[r*seqLen:(r+1)*seqLen], db.Real[r*seqLen:(r+1)*seqLen], toks)
		}
		out = append(out, db)
	}
	return out, nil
}
