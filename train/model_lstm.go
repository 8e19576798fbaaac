package train

import (
	"fmt"
	"math"

	"github.com/normtop/normtop/nn"
	G "gorgonia.org/gorgonia"
)

// lstm is an LSTM language model over characters or words (docs/math.md §10;
// Ba et al. 2016's LayerNorm LSTM):
//
//	x = tok_emb[token]
//	for each layer i:
//	    x = LSTM_i(N_x "lstm<i>.x"(x·W_x), W_h, b; N_h "lstm<i>.h", N_c "lstm<i>.c")
//	logits = out(x)
//
// LSTM_i runs the whole sequence in one fused op (LSTMSeq), with
// backpropagation through time over it; N_x sees every position's row at
// once, which is the same thing for a per-row norm. Weights follow
// PyTorch's defaults in scale: N(0, 1) embeddings, std 1/√(3H) for W_x,
// W_h and the output layer (the std of U(−1/√H, 1/√H)), zero biases.
type lstm struct {
	vocab, d, layers, seq int
}

// MaxLSTMSeq caps --seq-len for the LSTM: backpropagation through time
// keeps about 24·H values per position and layer, and the recurrence runs
// the positions one after the other.
const MaxLSTMSeq = 1024

func newLSTM(vocab, d, layers, seq int) *lstm {
	return &lstm{vocab: vocab, d: d, layers: layers, seq: seq}
}

func (m *lstm) Name() string { return "lstm" }

func (m *lstm) Weights() []weightSpec {
	std := 1 / math.Sqrt(3*float64(m.d))
	w := []weightSpec{{"tok_emb", []int{m.vocab, m.d}, 1}}
	for i := 0; i < m.layers; i++ {
		p := fmt.Sprintf("lstm%d.", i)
		w = append(w,
			weightSpec{p + "wx", []int{m.d, 4 * m.d}, std},
			weightSpec{p + "wh", []int{m.d, 4 * m.d}, std},
			weightSpec{p + "b", []int{4 * m.d}, 0})
	}
	return append(w, linearSpecs("out", m.d, m.vocab, std)...)
}

func (m *lstm) Sites() []site {
	var s []site
	for i := 0; i < m.layers; i++ {
		p := fmt.Sprintf("lstm%d.", i)
		// Per-row variants only (the batch family and the per-sequence zoo
		// are refused for the LSTM): each row is its own sample here.
		s = append(s, site{Name: p + "x", D: 4 * m.d, Heads: 1, SampleRows: 1},
			site{Name: p + "h", D: 4 * m.d, Heads: 1, SampleRows: 1}, site{Name: p + "c", D: m.d, Heads: 1, SampleRows: 1})
	}
	return s
}

func (m *lstm) Forward(b *builder) (*G.Node, error) {
	tok, err := b.weight("tok_emb")
	if err != nil {
		return nil, err
	}
	if len(b.tokens) != b.batch*m.seq {
		return nil, fmt.Errorf("lstm: %d tokens for batch %d × seq %d", len(b.tokens), b.batch, m.seq)
	}
	x, err := nn.Embed(tok, &b.tokens)
	if err != nil {
		return nil, err
	}
	for i := 0; i < m.layers; i++ {
		if x, err = m.layer(b, i, x); err != nil {
			return nil, err
		}
		if x, err = b.dropout(x); err != nil {
			return nil, err
		}
	}
	return b.linear("out", x)
}

// layer is LSTM layer i over the [B·T, d] input x.
func (m *lstm) layer(b *builder, i int, x *G.Node) (*G.Node, error) {
	p := fmt.Sprintf("lstm%d.", i)
	var w [3]*G.Node
	for k, n := range []string{"wx", "wh", "b"} {
		var err error
		if w[k], err = b.weight(p + n); err != nil {
			return nil, err
		}
	}
	xg, err := nn.MatMul(x, w[0], false)
	if err != nil {
		return nil, fmt.Errorf("%sx: %w", p, err)
	}
	if xg, err = b.norm(p+"x", xg); err != nil {
		return nil, err
	}
	nh, ph, err := b.seqNorm(p + "h")
	if err != nil {
		return nil, err
	}
	nc, pc, err := b.seqNorm(p + "c")
	if err != nil {
		return nil, err
	}
	var gh, bh, gc, bc *G.Node
	if len(ph) == 2 && len(pc) == 2 {
		gh, bh, gc, bc = ph[0], ph[1], pc[0], pc[1]
	}
	return LSTMSeq(xg, w[1], w[2], nh, nc, gh, bh, gc, bc, b.batch, m.seq, b.realRows())
}
