package datasets

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// SentenceBatcher hands out batches of whole sentences, one per row, padded
// on the right to seqLen (see the package documentation).
type SentenceBatcher struct {
	sents    [][]int32
	batch    int
	seqLen   int
	rng      *rand.Rand // nil when not shuffling
	order    []int32
	pos      int
	consumed int64 // sentences handed out in all
}

// checkSentences rejects what no row can hold: no sentences, negative ids
// and the <pad> and <s> ids, which would make a word indistinguishable from
// padding or from the markers the batcher adds.
func checkSentences(sents [][]int32) error {
	if len(sents) == 0 {
		return errors.New("no sentences")
	}
	for i, s := range sents {
		for _, id := range s {
			if id < 0 || id == PadID || id == SepID {
				return fmt.Errorf("sentence %d holds token id %d (want ids ≥ %d or <unk>=%d; <pad> and <s> are added by the batcher)", i, id, NumSpecials, UnkID)
			}
		}
	}
	return nil
}

// NewSentenceBatcher checks its arguments and prepares the first epoch.
// It needs at least batch sentences and seqLen ≥ 2 (the <s> marker and one
// word).
func NewSentenceBatcher(sents [][]int32, batch, seqLen int, seed int64, shuffle bool) (*SentenceBatcher, error) {
	if batch <= 0 || seqLen < 2 {
		return nil, fmt.Errorf("sentence batch %d×%d, want batch ≥ 1 and sequence length ≥ 2", batch, seqLen)
	}
	if err := checkSentences(sents); err != nil {
		return nil, err
	}
	if len(sents) < batch {
		return nil, fmt.Errorf("%d sentences, too few for one batch of %d", len(sents), batch)
	}
	b := &SentenceBatcher{sents: sents, batch: batch, seqLen: seqLen, order: make([]int32, len(sents))}
	if shuffle {
		b.rng = newRand(seed)
	}
	fillOrder(b.order, b.rng)
	return b, nil
}

// Next fills in/tgt (len batch*seqLen) and real (len batch*seqLen): row b
// holds one sentence as <s> w1 ... wk, targets w1 ... wk <s>, right-padded
// with token 0 and target -1; real[i] is false on padding. A sentence of
// more than seqLen-1 words is truncated to its first seqLen-1, and its last
// target is then the next word rather than <s>. Batches wrap across epochs:
// every sentence is seen once per epoch. Wrong buffer sizes panic.
func (b *SentenceBatcher) Next(in, tgt []int32, real []bool) {
	n := b.batch * b.seqLen
	if len(in) != n || len(tgt) != n || len(real) != n {
		panic(fmt.Sprintf("datasets: SentenceBatcher.Next: got %d inputs, %d targets and %d flags, want %d×%d each", len(in), len(tgt), len(real), b.batch, b.seqLen))
	}
	for r := 0; r < b.batch; r++ {
		if b.pos == len(b.order) {
			fillOrder(b.order, b.rng)
			b.pos = 0
		}
		o := r * b.seqLen
		fillSentenceRow(in[o:o+b.seqLen], tgt[o:o+b.seqLen], real[o:o+b.seqLen], b.sents[b.order[b.pos]], true)
		b.pos++
	}
	b.consumed += int64(b.batch)
}

// fillSentenceRow writes one row holding s, or all padding when !used.
func fillSentenceRow(in, tgt []int32, real []bool, s []int32, used bool) {
	seqLen := len(in)
	k := 0 // real positions
	if used {
		k = min(len(s)+1, seqLen)
		in[0] = SepID
		copy(in[1:k], s)
		copy(tgt[:k], s)
		if len(s) < seqLen {
			tgt[len(s)] = SepID
		}
	}
	for i := range seqLen {
		real[i] = i < k
		if i >= k {
			in[i], tgt[i] = PadID, -1
		}
	}
}

// Epoch is the number of epochs handed out so far, fractional.
func (b *SentenceBatcher) Epoch() float64 {
	return float64(b.consumed) / float64(len(b.sents))
}

// StepsPerEpoch is the number of Next calls that hand out at least one
// epoch: ceil(sentences / batch).
func (b *SentenceBatcher) StepsPerEpoch() int {
	return (len(b.sents) + b.batch - 1) / b.batch
}

// SentenceBatch is one fixed evaluation batch, laid out as
// SentenceBatcher.Next lays out its buffers.
type SentenceBatch struct {
	In, Tgt []int32
	Real    []bool
	Rows    int // rows holding a sentence; the rest are all padding
	Tokens  int // real positions (predicted targets) in the batch
}

// SentenceEvalBatches cuts n sentences of sents, spread evenly over it
// (sentence i*len/n for i < n; all of them when n ≤ 0 or n ≥ len), into
// fixed batches in that order. The last batch's unused rows are padding
// with Real all false, so every sentence counts exactly once. Long
// sentences are truncated as in Next.
func SentenceEvalBatches(sents [][]int32, n, batch, seqLen int) ([]SentenceBatch, error) {
	if batch <= 0 || seqLen < 2 {
		return nil, fmt.Errorf("sentence batch %d×%d, want batch ≥ 1 and sequence length ≥ 2", batch, seqLen)
	}
	if err := checkSentences(sents); err != nil {
		return nil, err
	}
	sel := SpreadSentences(sents, n)
	n = len(sel)
	var out []SentenceBatch
	for i := 0; i < n; i += batch {
		sb := SentenceBatch{
			In:   make([]int32, batch*seqLen),
			Tgt:  make([]int32, batch*seqLen),
			Real: make([]bool, batch*seqLen),
		}
		for r := range batch {
			var s []int32
			used := i+r < n
			if used {
				s = sel[i+r]
				sb.Rows++
				sb.Tokens += min(len(s)+1, seqLen)
			}
			o := r * seqLen
			fillSentenceRow(sb.In[o:o+seqLen], sb.Tgt[o:o+seqLen], sb.Real[o:o+seqLen], s, used)
		}
		out = append(out, sb)
	}
	return out, nil
}

// SpreadSentences is the evaluation subset of n sentences, spread evenly
// over sents (sentence i·len/n for i < n), in that order; all of them when
// n ≤ 0 or n ≥ len(sents).
func SpreadSentences(sents [][]int32, n int) [][]int32 {
	if n <= 0 || n >= len(sents) {
		return sents
	}
	out := make([][]int32, n)
	for i := range out {
		out[i] = sents[int(int64(i)*int64(len(sents))/int64(n))]
	}
	return out
}
