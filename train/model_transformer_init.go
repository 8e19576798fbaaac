package train

import (
	"fmt"
	"math"
	"strings"
)

// The transformer's initial weights under the learned input (GPT-2's);
// fairseq's are in model_input.go.

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
