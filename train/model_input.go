package train

import (
	"fmt"
	"math"
	"strconv"

	"github.com/normtop/normtop/nn"
)

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

// measureInput records the variance of the first norm's input at the
// first batch of the first seed (model_input.go) in the run's header as
// input_var: the number that tells whether the running statistics' init
// of 1 is near the batch statistics (fairseq's input) or far from them.
func (r *Runner) measureInput(init [][]float64) error {
	var t *transformer
	switch m := r.model.(type) {
	case *transformer:
		t = m
	case *classifier:
		t = m.transformer
	default:
		return nil
	}
	c := r.cfg
	c.Seed = c.RunSeeds()[0]
	bt, err := r.src.newBatcher(c) // a fresh stream: the variants' own are untouched
	if err != nil {
		return err
	}
	v := r.variants[0].train // its inputs are rewritten before every step
	bt.next(v)
	iv, err := t.inputVariance(init, v.b.tokens, v.b.pos, v.b.real)
	if err != nil {
		return err
	}
	r.meta.Config["input_var"] = strconv.FormatFloat(iv, 'g', 4, 64)
	return nil
}
