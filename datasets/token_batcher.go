package datasets

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
)

// TokenBatcher hands out token-budget batches, as fairseq's --max-tokens
// does: the items (sentences or documents) are sorted by the positions
// they take in a row, cut in that order into batches whose rows × padded
// width stays within the budget, and the batches are handed out in an
// order shuffled per epoch from the seed. The batches themselves never
// change: every epoch hands out each item exactly once, grouped with items
// of its own length. Ties in length are broken by a permutation (fixed, or
// drawn from the seed: TokenBudget.TiesBySeed), so that a batch does not
// hold consecutive sentences of one document.
//
// A batch fills the first rows·width positions of the buffers, row-major,
// one item per row of width positions; positions from rows·width on are
// padding up to the budget (MaxTokens positions).
type TokenBatcher struct {
	sents  [][]int32 // sentence items; nil for documents
	docs   []Doc     // document items; nil for sentences
	seqLen int
	budget int
	groups [][]int32 // item indices per batch, sorted by length
	widths []int     // each batch's padded width
	rng    *rand.Rand
	order  []int32 // batch indices of this epoch
	pos    int
	items  int
	// consumed counts items handed out in all
	consumed int64
}

// TokenBudget is how a TokenBatcher cuts its batches.
type TokenBudget struct {
	MaxTokens int   // positions per batch, padding included
	SeqLen    int   // the longest row
	Seed      int64 // the batch order of every epoch
	// TiesBySeed breaks ties in length by a permutation drawn from Seed, as
	// fairseq's ordered_indices does (a random permutation under the run's
	// seed, then a stable sort by length): each seed then makes its own
	// batches. false: one fixed permutation, the same batches for every seed.
	TiesBySeed bool
	// RowMultiple > 1 rounds a batch's rows down to a multiple of it when the
	// budget cuts the batch (fairseq's --required-batch-size-multiple, 8 by
	// default there): the rows past the multiple open the next batch. A batch
	// with fewer rows than the multiple keeps them all. 0 or 1: no rounding.
	RowMultiple int
}

// tieBreakSeed fixes the permutation that orders items of equal length
// when TokenBudget.TiesBySeed is false.
const tieBreakSeed = 0x746f6b656e73 // "tokens"

// NewSentenceTokenBatcher groups sentences (each taking min(len+1, seqLen)
// positions: <s> and its words, see SentenceBatcher) into batches of at
// most b.MaxTokens positions.
func NewSentenceTokenBatcher(sents [][]int32, b TokenBudget) (*TokenBatcher, error) {
	if b.SeqLen < 2 {
		return nil, fmt.Errorf("sequence length %d, want ≥ 2 (the <s> marker and one word)", b.SeqLen)
	}
	if err := checkSentences(sents); err != nil {
		return nil, err
	}
	lens := make([]int, len(sents))
	for i, s := range sents {
		lens[i] = min(len(s)+1, b.SeqLen)
	}
	tb := &TokenBatcher{sents: sents, seqLen: b.SeqLen}
	return tb, tb.group(lens, b)
}

// NewDocTokenBatcher groups documents (each taking min(len, seqLen)
// positions) into batches of at most b.MaxTokens positions.
func NewDocTokenBatcher(docs []Doc, b TokenBudget) (*TokenBatcher, error) {
	if b.SeqLen < 1 {
		return nil, fmt.Errorf("sequence length %d, want ≥ 1", b.SeqLen)
	}
	if _, err := NewDocBatcher(docs, 1, b.SeqLen, 0, false); err != nil {
		return nil, err
	}
	lens := make([]int, len(docs))
	for i, d := range docs {
		lens[i] = min(len(d.Tokens), b.SeqLen)
	}
	tb := &TokenBatcher{docs: docs, seqLen: b.SeqLen}
	return tb, tb.group(lens, b)
}

// group cuts the items, sorted by length, into batches under the budget
// (fairseq's batch_by_size) and prepares the first epoch.
func (b *TokenBatcher) group(lens []int, tb TokenBudget) error {
	if len(lens) == 0 {
		return errors.New("no items")
	}
	maxTokens := tb.MaxTokens
	if maxTokens < b.seqLen {
		return fmt.Errorf("max-tokens %d is below the longest row, %d positions (seq-len): a batch must hold at least one row", maxTokens, b.seqLen)
	}
	if tb.RowMultiple < 0 {
		return fmt.Errorf("row multiple %d, want ≥ 0", tb.RowMultiple)
	}
	idx := make([]int32, len(lens))
	tieSeed := int64(tieBreakSeed)
	if tb.TiesBySeed {
		tieSeed = tb.Seed
	}
	fillOrder(idx, newRand(tieSeed))
	slices.SortStableFunc(idx, func(x, y int32) int { return cmp.Compare(lens[x], lens[y]) })
	widthOf := func(items []int32) int {
		w := 0
		for _, i := range items {
			w = max(w, lens[i])
		}
		return w
	}
	var cur []int32
	width := 0 // cur's width
	for _, i := range idx {
		// Cut while adding i would pass the budget: keep a multiple of
		// RowMultiple rows (or all of them when fewer) and carry the rest
		// into the next batch, which may itself have to be cut again.
		for len(cur) > 0 && (len(cur)+1)*max(width, lens[i]) > maxTokens {
			keep := len(cur)
			if m := tb.RowMultiple; m > 1 && keep >= m {
				keep -= keep % m
			}
			b.groups, b.widths = append(b.groups, slices.Clip(cur[:keep])), append(b.widths, widthOf(cur[:keep]))
			cur = append([]int32(nil), cur[keep:]...)
			width = widthOf(cur)
		}
		cur, width = append(cur, i), max(width, lens[i])
	}
	b.groups, b.widths = append(b.groups, cur), append(b.widths, width)
	b.budget, b.items = maxTokens, len(lens)
	b.rng = newRand(tb.Seed)
	b.order = make([]int32, len(b.groups))
	fillOrder(b.order, b.rng)
	return nil
}

// next returns the next batch's items and width, starting a new epoch
// (a new shuffle of the batches) when the last one ran out.
func (b *TokenBatcher) next() ([]int32, int) {
	if b.pos == len(b.order) {
		fillOrder(b.order, b.rng)
		b.pos = 0
	}
	k := b.order[b.pos]
	b.pos++
	b.consumed += int64(len(b.groups[k]))
	return b.groups[k], b.widths[k]
}

// NextSentences fills in, tgt and real (MaxTokens each) with the next batch
// of sentences, laid out as SentenceBatcher lays out a row, and returns its
// rows and width. Wrong buffer sizes or a document batcher panic.
func (b *TokenBatcher) NextSentences(in, tgt []int32, real []bool) (rows, width int) {
	if b.sents == nil || len(in) != b.budget || len(tgt) != b.budget || len(real) != b.budget {
		panic(fmt.Sprintf("datasets: TokenBatcher.NextSentences: %d inputs, %d targets, %d flags, want %d each of a sentence batcher", len(in), len(tgt), len(real), b.budget))
	}
	items, width := b.next()
	for r, i := range items {
		o := r * width
		fillSentenceRow(in[o:o+width], tgt[o:o+width], real[o:o+width], b.sents[i], true)
	}
	used := len(items) * width
	fillSentenceRow(in[used:], tgt[used:], real[used:], nil, false)
	return len(items), width
}

// NextDocs fills in and real (MaxTokens each) with the next batch of
// documents and labels (MaxRows) with their classes, -1 past the batch's
// rows, and returns its rows and width. Wrong buffer sizes or a sentence
// batcher panic.
func (b *TokenBatcher) NextDocs(in []int32, real []bool, labels []int32) (rows, width int) {
	if b.docs == nil || len(in) != b.budget || len(real) != b.budget || len(labels) != b.MaxRows() {
		panic(fmt.Sprintf("datasets: TokenBatcher.NextDocs: %d inputs, %d flags, %d labels, want %d, %d and %d of a document batcher", len(in), len(real), len(labels), b.budget, b.budget, b.MaxRows()))
	}
	items, width := b.next()
	for r := range labels {
		labels[r] = -1
	}
	for r, i := range items {
		o := r * width
		fillDocRow(in[o:o+width], real[o:o+width], b.docs[i].Tokens)
		labels[r] = int32(b.docs[i].Label)
	}
	used := len(items) * width
	fillDocRow(in[used:], real[used:], nil)
	return len(items), width
}

// MaxTokens is the budget: positions per batch, padding included.
func (b *TokenBatcher) MaxTokens() int { return b.budget }

// MaxRows is the most rows any batch holds.
func (b *TokenBatcher) MaxRows() int {
	m := 0
	for _, g := range b.groups {
		m = max(m, len(g))
	}
	return m
}

// StepsPerEpoch is the number of batches: one epoch hands out each once.
func (b *TokenBatcher) StepsPerEpoch() int { return len(b.groups) }

// Epoch is the number of epochs handed out so far, fractional (items
// handed out over items).
func (b *TokenBatcher) Epoch() float64 { return float64(b.consumed) / float64(b.items) }
