package train

import (
	"github.com/normtop/normtop/nn"
	G "gorgonia.org/gorgonia"
)

// classifier is a Transformer encoder for text classification (Xu et al.'s
// RT/SST rows): the blocks of the language model (pre-LN unless --placement
// says otherwise) with bidirectional attention that never looks at padding,
// the final norm where the placement has one, then the mean over each
// document's real tokens and one linear layer to the classes.
//
//	h = tok_emb[x] + pos_emb[t]
//	blocks as in transformer, attention unmasked in time, keys masked by padding
//	logits = out(MeanPool_real(norm "final"(h)))
//
// Every norm site sees one row per token, padded rows included; the trainer
// gives the norm layers the padding mask, so padding is left out of their
// statistics (docs/math.md §6.5).
type classifier struct {
	*transformer
	classes int
}

func newClassifier(vocab, classes, d, layers, heads, seq int, placement Placement) *classifier {
	t := newTransformer(vocab, d, layers, heads, seq, placement)
	t.causal, t.padded, t.out = false, true, classes
	return &classifier{transformer: t, classes: classes}
}

func (m *classifier) Name() string { return "classifier" }

func (m *classifier) Forward(b *builder) (*G.Node, error) {
	h, err := m.encode(b)
	if err != nil {
		return nil, err
	}
	if h, err = nn.MeanPoolLayout(h, b.layout, b.batch, b.realRows()); err != nil {
		return nil, err
	}
	return b.linear("out", h)
}
