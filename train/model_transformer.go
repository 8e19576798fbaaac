package train

import (
	"fmt"
	"math"
	"strings"

	"github.com/normtop/normtop/nn"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
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
// The other placements (--placement, Placement below) change only the two
// residual steps of a block and the final norm:
//
//	post      h = norm "block<i>.ln1"(h + Attention(h))                    no final norm
//	sandwich  h = h + norm "block<i>.ln1b"(Attention(norm "block<i>.ln1"(h)))   final norm
//	deepnorm  h = norm "block<i>.ln1"(α·h + Attention(h))                  no final norm
//
// (and the same around the FFN with ln2, ln2b). Attention is multi-head
// causal self-attention (one fused op); the FFN is Linear(d, f) → ReLU →
// Linear(f, d), f = 4d unless Config.FFN says otherwise. Activations are
// [B·T, d] matrices throughout, so every norm site sees one row per token
// (docs/math.md §0). tok_emb is the V×d embedding matrix the spectrum
// probe reads.
//
// This file is the whole model, to be read top to bottom: the forward pass
// in the order it runs (the ops are package nn's, the norms the variant's,
// through builder.norm), the placements of the norms, the input, the
// initial weights, the norm sites and the weights each one feeds, and the
// input's measured variance.
type transformer struct {
	vocab, d, layers, heads, seq int
	placement                    Placement
	// causal is false for the classifier's encoder. padded: batches carry
	// a row mask (builder.real) that attention applies to its keys; the
	// norm layers get the same mask from the trainer.
	causal, padded bool
	out            int // logits per row: vocab for the language model
	// input is how token ids become the first block's input: InputLearned
	// (GPT-2's learned positions) or InputFairseq (fairseq's). tie:
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
// (the input's section below).
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
// site+"b"; Placement below):
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

// Where the norms sit in a block: the placements.

// Placement is where the norms sit in a Transformer block (docs/math.md §9).
// With F a sub-layer (attention or FFN) and LN the run's variant:
//
//	pre       x + F(LN(x))            a final norm after the last block
//	post      LN(x + F(x))            no final norm (the original Transformer)
//	sandwich  x + LN₂(F(LN₁(x)))      a second norm on each sub-layer's output; final norm
//	deepnorm  LN(α·x + F(x))          α = (2N)^{1/4}, β-scaled Xavier init; no final norm
//
// The empty Placement is pre, the default of every block model.
type Placement string

const (
	PlacePre      Placement = "pre"
	PlacePost     Placement = "post"
	PlaceSandwich Placement = "sandwich"
	PlaceDeepNorm Placement = "deepnorm"
)

// Placements lists the placements in the order help texts show them.
var Placements = []Placement{PlacePre, PlacePost, PlaceSandwich, PlaceDeepNorm}

// ParsePlacement checks a --placement value.
func ParsePlacement(s string) (Placement, error) {
	for _, p := range Placements {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("placement %q: want %s", s, placementNames())
}

func placementNames() string {
	names := make([]string, len(Placements))
	for i, p := range Placements {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// Or returns p, or pre when p is empty.
func (p Placement) Or() Placement {
	if p == "" {
		return PlacePre
	}
	return p
}

// normsResidual: the norm is applied to the residual sum (post, deepnorm),
// so the stream between blocks is normalised and no final norm follows.
func (p Placement) normsResidual() bool { p = p.Or(); return p == PlacePost || p == PlaceDeepNorm }

// finalNorm reports whether the model ends with a "final" norm site.
func (p Placement) finalNorm() bool { return !p.normsResidual() }

// deepNormAlpha is DeepNorm's residual scale α = (2N)^{1/4} for N blocks
// (Wang et al. 2022, encoder-only / decoder-only form).
func deepNormAlpha(blocks int) float64 { return math.Pow(2*float64(blocks), 0.25) }

// deepNormBeta is DeepNorm's initialisation gain β = (8N)^{−1/4}.
func deepNormBeta(blocks int) float64 { return math.Pow(8*float64(blocks), -0.25) }

// scalarConst is x as a constant node of dtype dt (DeepNorm's α).
func scalarConst(dt tensor.Dtype, x float64) *G.Node {
	if dt == tensor.Float32 {
		return G.NewConstant(float32(x))
	}
	return G.NewConstant(x)
}

// The input, and the initial weights under each input.

// The transformer's input (Config.Input).
const (
	// InputLearned: token and position embeddings N(0, 0.02²), learned,
	// added unscaled (GPT-2). The first norm's input has a variance of
	// about 2·0.02² = 8·10⁻⁴.
	InputLearned = "learned"
	// InputFairseq: fairseq's Transformer input, the PowerNorm authors'
	// setting: token embeddings N(0, 1/d) scaled by √d plus fixed
	// sinusoidal positions, linear layers Xavier-uniform. The first norm's
	// input then has a variance of order 1 (a token part of 1 per feature
	// plus the sinusoids' spread over positions), the scale of the running
	// statistics' init.
	InputFairseq = "fairseq"
)

// validInput reports whether s names an input.
func validInput(s string) bool { return s == InputLearned || s == InputFairseq }

// fairseqPositions is the sinusoid table the fairseq input adds: row p is
// fairseq's position p + FairseqPosOffset.
func fairseqPositions(seq, d int) []float64 {
	return nn.Sinusoids(seq+nn.FairseqPosOffset, d)[nn.FairseqPosOffset*d:]
}

// Weights lists every weight in the order initModel draws them.
func (m *transformer) Weights() []weightSpec {
	if m.input == InputFairseq {
		return m.fairseqWeights()
	}
	// GPT-2 style: N(0, 0.02²), residual projections scaled by 1/√(2L).
	// DeepNorm: the value, attention-output and FFN projections Xavier
	// normal with gain β = (8N)^{−1/4} (Wang et al. 2022); the queries and
	// keys keep 0.02, which docs/math.md §9 leaves alone (colStds).
	const std = 0.02
	res := std / math.Sqrt(2*float64(m.layers))
	proj, fc, fcProj := res, std, res
	if m.placement == PlaceDeepNorm {
		beta := deepNormBeta(m.layers)
		proj, fc, fcProj = xavierStd(beta, m.d, m.d), xavierStd(beta, m.d, m.ffnWidth()), xavierStd(beta, m.ffnWidth(), m.d)
	}
	w := []weightSpec{
		{"tok_emb", []int{m.vocab, m.d}, std},
		{"pos_emb", []int{m.seq, m.d}, std},
	}
	for i := 0; i < m.layers; i++ {
		p := fmt.Sprintf("block%d.", i)
		w = append(w, linearSpecs(p+"attn.qkv", m.d, 3*m.d, std)...)
		w = append(w, linearSpecs(p+"attn.proj", m.d, m.d, proj)...)
		w = append(w, linearSpecs(p+"ffn.fc", m.d, m.ffnWidth(), fc)...)
		w = append(w, linearSpecs(p+"ffn.proj", m.ffnWidth(), m.d, fcProj)...)
	}
	if !m.tie {
		w = append(w, linearSpecs("out", m.d, m.out, std)...)
	}
	return w
}

// fairseqWeights are the fairseq input's weights (fairseq's
// TransformerLanguageModel init): tok_emb N(0, 1/d); every linear layer
// Xavier-uniform with zero bias, the fused q, k, v projection as one
// [d, 3d] matrix, whose bound √(6/4d) is fairseq's for each of q, k, v
// with its gain 1/√2; an untied output layer N(0, 1/d), as fairseq's
// output projection. DeepNorm's gain β (docs/math.md §9) multiplies the
// bounds of the attention output and FFN projections, as it does their
// Xavier init under the learned input; q, k, v stay fairseq's.
func (m *transformer) fairseqWeights() []weightSpec {
	emb := 1 / math.Sqrt(float64(m.d))
	w := []weightSpec{{"tok_emb", []int{m.vocab, m.d}, emb}}
	xav := func(name string, gain float64, in, out int) []weightSpec {
		return []weightSpec{uniformSpec(name+".w", gain*xavier(in, out), in, out), {name + ".b", []int{out}, 0}}
	}
	beta := 1.0
	if m.placement == PlaceDeepNorm {
		beta = deepNormBeta(m.layers)
	}
	for i := 0; i < m.layers; i++ {
		p := fmt.Sprintf("block%d.", i)
		w = append(w, xav(p+"attn.qkv", 1, m.d, 3*m.d)...)
		w = append(w, xav(p+"attn.proj", beta, m.d, m.d)...)
		w = append(w, xav(p+"ffn.fc", beta, m.d, m.ffnWidth())...)
		w = append(w, xav(p+"ffn.proj", beta, m.ffnWidth(), m.d)...)
	}
	switch {
	case m.tie:
	case m.out == m.vocab:
		w = append(w, linearSpecs("out", m.d, m.out, emb)...)
	default: // the classifier's head
		w = append(w, xav("out", 1, m.d, m.out)...)
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

// xavierStd is the std of Xavier (Glorot) normal initialisation with gain:
// gain·√(2/(fan_in+fan_out)).
func xavierStd(gain float64, fanIn, fanOut int) float64 {
	return gain * math.Sqrt(2/float64(fanIn+fanOut))
}

// The norm sites as the probes see them: which sites a placement has, and
// which weight matrices each site's output feeds.

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
// docs/math.md §5). Pre and sandwich: a block's first norm feeds its attention
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

// outWeight is the output layer's weight matrix: the token embedding when
// tied (whose gradient then also holds the input side's, so gw_norm of the
// last norm reads both uses), else out.w.
func (m *transformer) outWeight() string {
	if m.tie {
		return "tok_emb"
	}
	return "out.w"
}

// inputVariance is the variance, per feature over the real rows of one
// batch, of the transformer's embedding output (the first block's input:
// the first norm's input in a pre-norm model, dropout aside), averaged
// over the features: what a BatchNorm at the first site sees as σ_B², to
// set against its running σ²'s init of 1. weights are the model's initial
// weights in Weights() order; tokens, pos and real (nil: every row) the
// batch as the graph's builder holds it.
func (m *transformer) inputVariance(weights [][]float64, tokens, pos []int32, real []bool) (float64, error) {
	byName := map[string][]float64{}
	for i, ws := range m.Weights() {
		byName[ws.Name] = weights[i]
	}
	tok := byName["tok_emb"]
	scale, table := 1.0, byName["pos_emb"]
	if m.input == InputFairseq {
		scale, table = math.Sqrt(float64(m.d)), fairseqPositions(m.seq, m.d)
	}
	if tok == nil || table == nil {
		return 0, fmt.Errorf("transformer: no input embedding to measure")
	}
	d := m.d
	sum, sq := make([]float64, d), make([]float64, d)
	n := 0
	row := make([]float64, d)
	for i, t := range tokens {
		if real != nil && !real[i] {
			continue
		}
		n++
		for k := range row {
			row[k] = scale*tok[int(t)*d+k] + table[int(pos[i])*d+k]
			sum[k] += row[k]
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("transformer: a batch without real rows")
	}
	for i, t := range tokens { // second pass: deviations from the mean
		if real != nil && !real[i] {
			continue
		}
		for k := range row {
			dv := scale*tok[int(t)*d+k] + table[int(pos[i])*d+k] - sum[k]/float64(n)
			sq[k] += dv * dv
		}
	}
	v := 0.0
	for _, s := range sq {
		v += s / float64(n) / float64(d)
	}
	return v, nil
}
