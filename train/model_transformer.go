package train

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"
)

// transformer is a causal character-level language model. Pre-LN (the
// default):
//
//	h = tok_emb[x] + pos_emb[t]
//	for each block i:
//	    h = h + Dropout(Attention(norm "block<i>.ln1"(h)))
//	    h = h + Dropout(FFN(norm "block<i>.ln2"(h)))
//	logits = out(norm "final"(h))
//
// Post-LN (--post-ln) puts the norms after the residual additions,
// h = norm "block<i>.ln1"(h + Attention(h)), and has no final norm.
// Attention is multi-head causal self-attention (one fused op); the FFN is
// Linear(d, 4d) → ReLU → Linear(4d, d). Activations are [B·T, d] matrices
// throughout, so every norm site sees one row per token (NORMS.md §0).
// tok_emb is the V×d embedding matrix the spectrum probe reads.
type transformer struct {
	vocab, d, layers, heads, seq int
	postLN                       bool
	// causal is false for the classifier's encoder. padded: batches carry
	// a row mask (builder.real) that attention applies to its keys; the
	// norm layers get the same mask from the trainer.
	causal, padded bool
	out            int // logits per row: vocab for the language model
}

func newTransformer(vocab, d, layers, heads, seq int, postLN bool) *transformer {
	return &transformer{vocab: vocab, d: d, layers: layers, heads: heads, seq: seq, postLN: postLN, causal: true, out: vocab}
}

func (m *transformer) Name() string { return "transformer" }

func (m *transformer) Weights() []weightSpec {
	// GPT-2 style: N(0, 0.02²), residual projections scaled by 1/√(2L).
	const std = 0.02
	res := std / math.Sqrt(2*float64(m.layers))
	w := []weightSpec{
		{"tok_emb", []int{m.vocab, m.d}, std},
		{"pos_emb", []int{m.seq, m.d}, std},
	}
	for i := 0; i < m.layers; i++ {
		p := fmt.Sprintf("block%d.", i)
		w = append(w, linearSpecs(p+"attn.qkv", m.d, 3*m.d, std)...)
		w = append(w, linearSpecs(p+"attn.proj", m.d, m.d, res)...)
		w = append(w, linearSpecs(p+"ffn.fc", m.d, 4*m.d, std)...)
		w = append(w, linearSpecs(p+"ffn.proj", 4*m.d, m.d, res)...)
	}
	w = append(w, linearSpecs("out", m.d, m.out, std)...)
	return w
}

func (m *transformer) Sites() []site {
	var s []site
	for i := 0; i < m.layers; i++ {
		s = append(s, site{Name: fmt.Sprintf("block%d.ln1", i), D: m.d, Heads: m.heads}, site{Name: fmt.Sprintf("block%d.ln2", i), D: m.d, Heads: m.heads})
	}
	if !m.postLN {
		s = append(s, site{Name: "final", D: m.d, Heads: m.heads})
	}
	return s
}

// attention is the attention sublayer without its residual.
func (m *transformer) attention(b *builder, p string) func(*G.Node) (*G.Node, error) {
	return func(x *G.Node) (*G.Node, error) {
		return chain(x,
			func(x *G.Node) (*G.Node, error) { return b.linear(p+"attn.qkv", x) },
			func(x *G.Node) (*G.Node, error) { return Attention(x, b.batch, m.seq, m.heads, m.causal, b.realRows()) },
			func(x *G.Node) (*G.Node, error) { return b.linear(p+"attn.proj", x) },
			b.dropout,
		)
	}
}

// ffn is the feed-forward sublayer without its residual.
func (m *transformer) ffn(b *builder, p string) func(*G.Node) (*G.Node, error) {
	return func(x *G.Node) (*G.Node, error) {
		return chain(x,
			func(x *G.Node) (*G.Node, error) { return b.linear(p+"ffn.fc", x) },
			ReLU,
			func(x *G.Node) (*G.Node, error) { return b.linear(p+"ffn.proj", x) },
			b.dropout,
		)
	}
}

// residual returns a step computing x + f(x) (pre-LN: f includes the norm)
// or, for post-LN, norm(x + f(x)).
func (m *transformer) residual(b *builder, normSite string, f func(*G.Node) (*G.Node, error)) func(*G.Node) (*G.Node, error) {
	return func(x *G.Node) (*G.Node, error) {
		if m.postLN {
			y, err := f(x)
			if err != nil {
				return nil, err
			}
			if y, err = G.Add(x, y); err != nil {
				return nil, err
			}
			return b.norm(normSite, y)
		}
		y, err := chain(x, func(x *G.Node) (*G.Node, error) { return b.norm(normSite, x) }, f)
		if err != nil {
			return nil, err
		}
		return G.Add(x, y)
	}
}

func (m *transformer) Forward(b *builder) (*G.Node, error) {
	h, err := m.encode(b)
	if err != nil {
		return nil, err
	}
	return b.linear("out", h)
}

// encode is the model up to the output layer: embeddings, the blocks and,
// pre-LN, the final norm; [B·T, d].
func (m *transformer) encode(b *builder) (*G.Node, error) {
	tok, err := b.weight("tok_emb")
	if err != nil {
		return nil, err
	}
	posW, err := b.weight("pos_emb")
	if err != nil {
		return nil, err
	}
	if len(b.tokens) != b.batch*m.seq {
		return nil, fmt.Errorf("transformer: %d tokens for batch %d × seq %d", len(b.tokens), b.batch, m.seq)
	}
	pos := make([]int32, b.batch*m.seq)
	for i := range pos {
		pos[i] = int32(i % m.seq)
	}
	te, err := Embed(tok, &b.tokens)
	if err != nil {
		return nil, err
	}
	pe, err := Embed(posW, &pos)
	if err != nil {
		return nil, err
	}
	h, err := G.Add(te, pe)
	if err != nil {
		return nil, err
	}
	if h, err = b.dropout(h); err != nil {
		return nil, err
	}
	for i := 0; i < m.layers; i++ {
		p := fmt.Sprintf("block%d.", i)
		if h, err = chain(h,
			m.residual(b, p+"ln1", m.attention(b, p)),
			m.residual(b, p+"ln2", m.ffn(b, p)),
		); err != nil {
			return nil, err
		}
	}
	if !m.postLN {
		if h, err = b.norm("final", h); err != nil {
			return nil, err
		}
	}
	return h, nil
}
