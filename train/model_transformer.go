package train

import (
	"fmt"
	"math"
	"strings"

	"github.com/normtop/normtop/nn"
	G "gorgonia.org/gorgonia"
)

// transformer is a causal character-level language model. Pre-LN (the
// default placement):
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
// causal self-attention (one fused op); the FFN is Linear(d, 4d) → ReLU →
// Linear(4d, d). Activations are [B·T, d] matrices throughout, so every
// norm site sees one row per token (NORMS.md §0). tok_emb is the V×d
// embedding matrix the spectrum probe reads.
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
}

func newTransformer(vocab, d, layers, heads, seq int, placement Placement) *transformer {
	return &transformer{vocab: vocab, d: d, layers: layers, heads: heads, seq: seq, placement: placement.Or(), causal: true, out: vocab}
}

func (m *transformer) Name() string { return "transformer" }

func (m *transformer) Weights() []weightSpec {
	if m.input == InputFairseq {
		return m.fairseqWeights()
	}
	// GPT-2 style: N(0, 0.02²), residual projections scaled by 1/√(2L).
	// DeepNorm: the value, attention-output and FFN projections Xavier
	// normal with gain β = (8N)^{−1/4} (Wang et al. 2022); the queries and
	// keys keep 0.02, which NORMS.md §9 leaves alone (colStds).
	const std = 0.02
	res := std / math.Sqrt(2*float64(m.layers))
	proj, fc, fcProj := res, std, res
	if m.placement == PlaceDeepNorm {
		beta := deepNormBeta(m.layers)
		proj, fc, fcProj = xavierStd(beta, m.d, m.d), xavierStd(beta, m.d, 4*m.d), xavierStd(beta, 4*m.d, m.d)
	}
	w := []weightSpec{
		{"tok_emb", []int{m.vocab, m.d}, std},
		{"pos_emb", []int{m.seq, m.d}, std},
	}
	for i := 0; i < m.layers; i++ {
		p := fmt.Sprintf("block%d.", i)
		w = append(w, linearSpecs(p+"attn.qkv", m.d, 3*m.d, std)...)
		w = append(w, linearSpecs(p+"attn.proj", m.d, m.d, proj)...)
		w = append(w, linearSpecs(p+"ffn.fc", m.d, 4*m.d, fc)...)
		w = append(w, linearSpecs(p+"ffn.proj", 4*m.d, m.d, fcProj)...)
	}
	if !m.tie {
		w = append(w, linearSpecs("out", m.d, m.out, std)...)
	}
	return w
}

// colStds gives DeepNorm's fused attn.qkv weights their value columns'
// std (columns [2d, 3d), Xavier with gain β); nil for every other weight.
func (m *transformer) colStds(weight string) []float64 {
	if m.placement != PlaceDeepNorm || !strings.HasSuffix(weight, ".attn.qkv.w") {
		return nil
	}
	s := make([]float64, 3*m.d)
	for c := range s {
		s[c] = 0.02
		if c >= 2*m.d {
			s[c] = xavierStd(deepNormBeta(m.layers), m.d, m.d)
		}
	}
	return s
}

// Sites are one per norm, in the order the forward pass applies them; a
// sample is one sequence of seq rows (encode lays the [B·T, d] rows out
// sample-major: row i is position i mod seq of sequence i / seq).
func (m *transformer) Sites() []site {
	at := func(name string) site { return site{Name: name, D: m.d, Heads: m.heads, SampleRows: m.seq} }
	var s []site
	for i := 0; i < m.layers; i++ {
		p := fmt.Sprintf("block%d.", i)
		s = append(s, at(p+"ln1"))
		if m.placement == PlaceSandwich {
			s = append(s, at(p+"ln1b"))
		}
		s = append(s, at(p+"ln2"))
		if m.placement == PlaceSandwich {
			s = append(s, at(p+"ln2b"))
		}
	}
	if m.placement.finalNorm() {
		s = append(s, at("final"))
	}
	return s
}

// feeds names the weight matrices that multiply a site's output (gw_norm,
// NORMS.md §5). Pre and sandwich: a block's first norm feeds its attention
// projections (the fused q,k,v matrix), its second norm the FFN's first
// matrix. Post and deepnorm: the norm closes a residual step, so ln1 feeds
// the same block's FFN and ln2 the next block's attention, or the output
// layer after the last block. Sandwich's ln1b and ln2b only join the
// residual stream (the next norm reads it) and feed no matrix. The final
// norm feeds the output layer (through the classifier's mean pool, which
// has no weights).
func (m *transformer) feeds(name string) []string {
	if name == "final" {
		return []string{m.outWeight()}
	}
	var i int
	var ln string
	if _, err := fmt.Sscanf(name, "block%d.%s", &i, &ln); err != nil {
		return nil
	}
	attn := func(i int) []string {
		if i == m.layers {
			return []string{m.outWeight()}
		}
		return []string{fmt.Sprintf("block%d.attn.qkv.w", i)}
	}
	fc := []string{fmt.Sprintf("block%d.ffn.fc.w", i)}
	switch {
	case ln == "ln1" && m.placement.normsResidual():
		return fc
	case ln == "ln2" && m.placement.normsResidual():
		return attn(i + 1)
	case ln == "ln1":
		return attn(i)
	case ln == "ln2":
		return fc
	}
	return nil
}

// attention is the attention sublayer without its residual.
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

// ffn is the feed-forward sublayer without its residual.
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

// residual returns one residual step of a block around the sublayer f,
// with the norm where the placement puts it (site names the norm; sandwich's
// second norm is site+"b").
func (m *transformer) residual(b *builder, site string, f func(*G.Node) (*G.Node, error)) func(*G.Node) (*G.Node, error) {
	norm := func(name string) func(*G.Node) (*G.Node, error) {
		return func(x *G.Node) (*G.Node, error) { return b.norm(name, x) }
	}
	return func(x *G.Node) (*G.Node, error) {
		switch m.placement {
		case PlacePost, PlaceDeepNorm: // LN(α·x + F(x)); α = 1 for post
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
		case PlaceSandwich: // x + LN₂(F(LN₁(x)))
			y, err := chain(x, norm(site), f, norm(site+"b"))
			if err != nil {
				return nil, err
			}
			return G.Add(x, y)
		}
		y, err := chain(x, norm(site), f) // pre: x + F(LN(x))
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
		return nn.MatMulT(h, tok) // the embedding's gradient sums both uses
	}
	return b.linear("out", h)
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
		p := fmt.Sprintf("block%d.", i)
		if h, err = chain(h,
			m.residual(b, p+"ln1", m.attention(b, p)),
			m.residual(b, p+"ln2", m.ffn(b, p)),
		); err != nil {
			return nil, err
		}
	}
	if m.placement.finalNorm() {
		if h, err = b.norm("final", h); err != nil {
			return nil, err
		}
	}
	return h, nil
}
