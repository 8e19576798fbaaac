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
	// input is how token ids become the first block's input: InputLearned
	// (GPT-2's learned positions) or InputFairseq (model_input.go). tie:
	// the output layer is the token embedding, logits = h·tok_embᵀ.
	input string
	tie   bool
}

func newTransformer(vocab, d, layers, heads, seq int, postLN bool) *transformer {
	return &transformer{vocab: vocab, d: d, layers: layers, heads: heads, seq: seq, postLN: postLN, causal: true, out: vocab}
}

func (m *transformer) Name() string { return "transformer" }

func (m *transformer) Weights() []weightSpec {
	if m.input == InputFairseq {
		return m.fairseqWeights()
	}
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
	if !m.tie {
		w = append(w, linearSpecs("out", m.d, m.out, std)...)
	}
	return w
}

// Sites are one per norm; a sample is one sequence of seq rows (encode
// lays the [B·T, d] rows out sample-major: row i is position i mod seq of
// sequence i / seq).
func (m *transformer) Sites() []site {
	at := func(name string) site { return site{Name: name, D: m.d, Heads: m.heads, SampleRows: m.seq} }
	var s []site
	for i := 0; i < m.layers; i++ {
		s = append(s, at(fmt.Sprintf("block%d.ln1", i)), at(fmt.Sprintf("block%d.ln2", i)))
	}
	if !m.postLN {
		s = append(s, at("final"))
	}
	return s
}

// embed is the first block's input: token embeddings plus positions.
func (m *transformer) embed(b *builder) (*G.Node, error) {
	tok, err := b.weight("tok_emb")
	if err != nil {
		return nil, err
	}
	te, err := Embed(tok, &b.tokens)
	if err != nil {
		return nil, err
	}
	if m.input == InputFairseq {
		return AddPositions(te, math.Sqrt(float64(m.d)), &b.pos, fairseqPositions(m.seq, m.d))
	}
	posW, err := b.weight("pos_emb")
	if err != nil {
		return nil, err
	}
	pe, err := Embed(posW, &b.pos)
	if err != nil {
		return nil, err
	}
	return G.Add(te, pe)
}

// attention is the attention sublayer without its residual.
func (m *transformer) attention(b *builder, p string) func(*G.Node) (*G.Node, error) {
	return func(x *G.Node) (*G.Node, error) {
		return chain(x,
			func(x *G.Node) (*G.Node, error) { return b.linear(p+"attn.qkv", x) },
			func(x *G.Node) (*G.Node, error) {
				return AttentionLayout(x, b.layout, m.seq, m.heads, m.causal, b.realRows())
			},
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
	if m.tie {
		tok, err := b.weight("tok_emb")
		if err != nil {
			return nil, err
		}
		return MatMulT(h, tok) // the embedding's gradient sums both uses
	}
	return b.linear("out", h)
}

// encode is the model up to the output layer: embeddings, the blocks and,
// pre-LN, the final norm; [B·T, d].
func (m *transformer) encode(b *builder) (*G.Node, error) {
	if _, err := b.seqLayout(m.seq); err != nil {
		return nil, fmt.Errorf("transformer: %w", err)
	}
	h, err := m.embed(b)
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
