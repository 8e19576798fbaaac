package train

import (
	"github.com/normtop/normtop/datasets"
	"github.com/normtop/normtop/nn"
	"github.com/normtop/normtop/probes"
)

// Token-budget batches (Config.MaxTokens, fairseq's --max-tokens): every
// batch fills the first rows × width positions of one graph of MaxTokens
// positions and leaves the rest as padding, masked out of every statistic
// as the padding inside a row is. The graph is built once; the ops that
// work per sequence read the batch's Layout when they run. (Padding every
// batch to its most rows × seq-len instead would run MaxRows·SeqLen
// positions a step, several times the budget; one graph per batch shape
// would hold up to seq-len graphs per variant: see docs/speed.md's
// "Token-budget batches".)

// newTokenBatcher is newBatcher for token-budget batches.
func (s *source) newTokenBatcher(c Config) (*batcher, error) {
	b := &batcher{}
	var err error
	n := c.MaxTokens
	b.in, b.mask = make([]int32, n), make([]bool, n)
	if b.tokDocs = s.labelled != nil; b.tokDocs {
		b.tok, err = datasets.NewDocTokenBatcher(s.labelled.Train, c.tokenBudget(c.Seed))
		b.tgt = make([]int32, s.maxRows)
	} else {
		b.tok, err = datasets.NewSentenceTokenBatcher(s.corpus.Train, c.tokenBudget(c.Seed))
		b.tgt = make([]int32, n)
	}
	if err != nil {
		return nil, dataError{err}
	}
	return b, nil
}

// nextTokens loads the next token-budget batch and its layout into n and
// returns its padding mask.
func (b *batcher) nextTokens(n *net) []bool {
	var rows, width int
	if b.tokDocs {
		rows, width = b.tok.NextDocs(b.in, b.mask, b.tgt)
	} else {
		rows, width = b.tok.NextSentences(b.in, b.tgt, b.mask)
	}
	n.setLayout(nn.Layout{Rows: rows, T: width})
	n.setTokens(b.in, b.tgt, b.mask)
	b.shape = probes.BatchShape{Rows: rows, Width: width, Tokens: realCount(b.mask)}
	return b.mask
}
