package train

import (
	"fmt"
	"math"

	"github.com/normtop/normtop/nn"
	G "gorgonia.org/gorgonia"
)

// transformer is a causal language model over characters or words. Pre-LN
// (the default placement):
//
//	h = tok_emb[x] + pos_emb[t]
//	for each block i:
//	    h = h + Dropout(Attention(norm "block<i>.ln1"(h)))
//	    h = h + Dropout(FFN(norm "block<i>.ln2"(h)))
//	logits = out(norm "final"(h))
//
// The other placements (--placement, placement.go) change only the two
// residual steps of a block and the final norm:
//
//	post      h = norm "block<i>.ln1"(h + Attention(h))                    no final norm
//	sandwich  h = h + norm "block<i>.ln1b"(Attention(norm "block<i>.ln1"(h)))   final norm
//	deepnorm  h = norm "block<i>.ln1"(α·h + Attention(h))                  no final norm
//
// (and the same around the FFN with ln2, ln2b). Attention is multi-head
// causal self-attention (one fused op); the FFN is Linear(d, f) → ReLU →
// Linear(f, d), f = 4d unless Config.FFN says otherwise. Activations are
// [B·T, d] matrices throughout, so every norm site sees one row per token (docs/math.md §0). tok_emb is the V×d
// embedding matrix the spectrum probe reads.
//
// This file is the forward pass, in the order it runs; the ops are
// package nn's, the norms the variant's (builder.norm). The initial
// weights are in model_transformer_init.go (fairseq's in model_input.go),
// the norm sites and what they feed in model_transformer_sites.go.
type transformer struct {
	vocab, d, layers, heads, seq int
	placement                    Placement
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
	// ffnHidden is the FFN's hidden width (Config.FFN); 0 is 4·d.
	ffnHidden int
}

// ffnWidth is the FFN's hidden width: Config.FFN, or 4·d by default
// (fairseq's IWSLT Transformer, the PowerNorm authors', uses 2·d: 1,024 at
// d 512).
func (m *transformer) ffnWidth() int {
	if m.ffnHidden > 0 {
		return m.ffnHidden
	}
	return 4 * m.d
}

func newTransformer(vocab, d, layers, heads, seq int, placement Placement) *transformer {
	return &transformer{vocab: vocab, d: d, layers: layers, heads: heads, seq: seq, placement: placement.Or(), causal: true, out: vocab}
}

func (m *transformer) Name() string { return "transformer" }

// Forward is the whole model, top to bottom: [B·T] token ids in b, [B·T,
// out] logits out. The steps below are in the order they run.
func (m *transformer) Forward(b *builder) (*G.Node, error) {
	h, err := m.encode(b)
	if err != nil {
		return nil, err
	}
	return m.logits(b, h)
}

// encode is the model up to the output layer: embeddings, the blocks and
// the final norm where the placement has one; [B·T, d].
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
		if h, err = m.block(b, i, h); err != nil {
			return nil, err
		}
	}
	if m.placement.finalNorm() {
		return b.norm("final", h)
	}
	return h, nil
}

// embed is the first block's input: token embeddings plus positions,
// GPT-2's learned ones or fairseq's √d-scaled tokens plus sinusoids
// (model_input.go).
func (m *transformer) embed(b *builder) (*G.Node, error) {
	tok, err := b.weight("tok_emb")
	if err != nil {
		return nil, err
	}
	te, err := nn.Embed(tok, &b.tokens)
	if err != nil {
		return nil, err
	}
	if m.input == InputFairseq {
		return nn.AddPositions(te, math.Sqrt(float64(m.d)), &b.pos, fairseqPositions(m.seq, m.d))
	}
	posW, err := b.weight("pos_emb")
	if err != nil {
		return nil, err
	}
	pe, err := nn.Embed(posW, &b.pos)
	if err != nil {
		return nil, err
	}
	return G.Add(te, pe)
}

// block is block i: attention, then the FFN, each a residual step with
// the block's norms ln1 and ln2 where the placement puts them.
func (m *transformer) block(b *builder, i int, h *G.Node) (*G.Node, error) {
	p := fmt.Sprintf("block%d.", i)
	h, err := m.residual(b, p+"ln1", h, m.attention(b, p))
	if err != nil {
		return nil, err
	}
	return m.residual(b, p+"ln2", h, m.ffn(b, p))
}

// residual is one residual step around the sublayer f, with the norm
// named site where the placement puts it (sandwich's second norm is
// site+"b"; placement.go):
//
//	pre       x + f(LN(x))
//	post      LN(x + f(x))
//	deepnorm  LN(α·x + f(x))
//	sandwich  x + LN₂(f(LN₁(x)))
func (m *transformer) residual(b *builder, site string, x *G.Node, f func(*G.Node) (*G.Node, error)) (*G.Node, error) {
	norm := func(name string) func(*G.Node) (*G.Node, error) {
		return func(x *G.Node) (*G.Node, error) { return b.norm(name, x) }
	}
	switch m.placement {
	case PlacePost, PlaceDeepNorm:
		y, err := f(x)
		if err != nil {
			return nil, err
		}
		skip := x
		if m.placement == PlaceDeepNorm {
			if skip, err = G.Mul(x, scalarConst(b.dt, deepNormAlpha(m.layers))); err != nil {
				return nil, err
			}
		}
		return chain(y, func(y *G.Node) (*G.Node, error) { return G.Add(skip, y) }, norm(site))
	case PlaceSandwich:
		y, err := chain(x, norm(site), f, norm(site+"b"))
		if err != nil {
			return nil, err
		}
		return G.Add(x, y)
	}
	y, err := chain(x, norm(site), f)
	if err != nil {
		return nil, err
	}
	return G.Add(x, y)
}

// attention is the attention sublayer without its residual: the fused
// q, k, v projection, multi-head self-attention (causal for the language
// model; padding keys hidden), the output projection, dropout.
func (m *transformer) attention(b *builder, p string) func(*G.Node) (*G.Node, error) {
	return func(x *G.Node) (*G.Node, error) {
		return chain(x,
			func(x *G.Node) (*G.Node, error) { return b.linear(p+"attn.qkv", x) },
			func(x *G.Node) (*G.Node, error) {
				return nn.AttentionLayout(x, b.layout, m.seq, m.heads, m.causal, b.realRows())
			},
			func(x *G.Node) (*G.Node, error) { return b.linear(p+"attn.proj", x) },
			b.dropout,
		)
	}
}

// ffn is the feed-forward sublayer without its residual: Linear(d, f) →
// ReLU → Linear(f, d) (f = ffnWidth), dropout.
func (m *transformer) ffn(b *builder, p string) func(*G.Node) (*G.Node, error) {
	return func(x *G.Node) (*G.Node, error) {
		return chain(x,
			func(x *G.Node) (*G.Node, error) { return b.linear(p+"ffn.fc", x) },
			nn.ReLU,
			func(x *G.Node) (*G.Node, error) { return b.linear(p+"ffn.proj", x) },
			b.dropout,
		)
	}
}

// logits is the output layer: h·tok_embᵀ when the embedding is tied (its
// gradient then sums both uses), else the linear layer out.
func (m *transformer) logits(b *builder, h *G.Node) (*G.Node, error) {
	if m.tie {
		tok, err := b.weight("tok_emb")
		if err != nil {
			return nil, err
		}
		return nn.MatMulT(h, tok)
	}
	return b.linear("out", h)
}
