package train

import "fmt"

// The transformer's norm sites as the probes see them: which sites a
// placement has, and which weight matrices each site's output feeds.

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
