package train

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/normtop/normtop/nn"
	"github.com/normtop/normtop/nn/nntest"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestSinusoidsClosedForm: fairseq's layout, sin(p·ω_i) in the first half
// of the features and cos(p·ω_i) in the second, ω_i = 10000^(−i/(h−1)),
// the last feature 0 when d is odd; and one row worked by hand.
func TestSinusoidsClosedForm(t *testing.T) {
	for _, d := range []int{4, 7, 64, 256} {
		const n = 40
		s := nn.Sinusoids(n, d)
		h := d / 2
		for p := range n {
			for i := range d {
				want := 0.0
				switch {
				case i < h:
					want = math.Sin(float64(p) / math.Pow(10000, float64(i)/float64(h-1)))
				case i < 2*h:
					want = math.Cos(float64(p) / math.Pow(10000, float64(i-h)/float64(h-1)))
				}
				if got := s[p*d+i]; math.Abs(got-want) > 1e-12 {
					t.Fatalf("d %d, position %d, feature %d: %v, want %v", d, p, i, got, want)
				}
			}
		}
	}
	// d = 4: ω = (1, 10⁻⁴); position 1 is (sin 1, sin 10⁻⁴, cos 1, cos 10⁻⁴)
	got := nn.Sinusoids(2, 4)[4:]
	want := []float64{0.8414709848078965, 9.999999983333334e-05, 0.5403023058681398, 0.999999995}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Fatalf("d 4, position 1: %v, want %v", got, want)
		}
	}
	// fairseq's positions start at padding_idx + 1 = 2
	if !slices.Equal(fairseqPositions(3, 4)[:4], nn.Sinusoids(3, 4)[8:12]) {
		t.Error("the first real position is not fairseq's position 2")
	}
}

// TestFairseqInputVariance: at d 256 the √d-scaled token embeddings,
// drawn N(0, 1/d), have variance ≈ 1, and inputVariance agrees with the
// variance of what the graph's input op computes (√d·E[x] + P[pos]) on a
// padded batch.
func TestFairseqInputVariance(t *testing.T) {
	const vocab, d, seq, batch = 2000, 256, 32, 16
	m := newTransformer(vocab, d, 1, 4, seq, PlacePre)
	m.input, m.tie, m.padded = InputFairseq, true, true
	w := initWeights(m.Weights(), 7)
	r := rand.New(rand.NewSource(2))
	tokens, real := make([]int32, batch*seq), make([]bool, batch*seq)
	for b := range batch {
		n := 3 + r.Intn(seq-3)
		for k := range seq {
			tokens[b*seq+k] = int32(3 + r.Intn(vocab-3))
			real[b*seq+k] = k < n
		}
	}
	scaled := 0.0
	for _, v := range w[0] { // tok_emb, all V·d values
		scaled += d * v * v / float64(len(w[0]))
	}
	if math.Abs(scaled-1) > 0.02 {
		t.Errorf("variance of the √d-scaled token embeddings %.4f, want 1 ± 0.02", scaled)
	}
	g := G.NewGraph()
	b := &builder{g: g, dt: tensor.Float64, batch: batch, w: map[string]*G.Node{}, tokens: tokens, real: real}
	for i, ws := range m.Weights() {
		b.w[ws.Name] = G.NodeFromAny(g, toTensor(w[i], tensor.Float64, ws.Shape...), G.WithName(ws.Name))
	}
	if _, err := b.seqLayout(seq); err != nil {
		t.Fatal(err)
	}
	h, err := m.embed(b)
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	got, err := m.inputVariance(w, tokens, b.pos, real)
	if err != nil {
		t.Fatal(err)
	}
	want := featureVariance(h.Value().Data().([]float64), d, real)
	if math.Abs(got-want) > 1e-9*want {
		t.Fatalf("inputVariance %v, the graph's input has %v", got, want)
	}
	// the token part contributes 1, the sinusoids' spread over the first
	// 32 positions a little more; never the learned input's 8·10⁻⁴
	if got < 0.9 || got > 1.6 {
		t.Errorf("first-norm input variance %.3f with fairseq's input, want ≈ 1", got)
	}
	t.Logf("d %d: token part %.4f, first-norm input variance %.4f", d, scaled, got)
	m.input = InputLearned
	lw := initWeights(m.Weights(), 7)
	lv, err := m.inputVariance(lw, tokens, b.pos, real)
	if err != nil || lv > 1e-3 || lv < 5e-4 {
		t.Errorf("learned input: variance %v (%v), want ≈ 2·0.02² = 8e-4", lv, err)
	}
}

// featureVariance is the per-feature variance over the real rows of x,
// averaged over the features.
func featureVariance(x []float64, d int, real []bool) float64 {
	v := 0.0
	for k := range d {
		var col []float64
		for i, r := range real {
			if r {
				col = append(col, x[i*d+k])
			}
		}
		mean := 0.0
		for _, c := range col {
			mean += c / float64(len(col))
		}
		for _, c := range col {
			v += (c - mean) * (c - mean) / float64(len(col)) / float64(d)
		}
	}
	return v
}

// TestGradFairseqInputTied: finite differences through the fairseq input
// and a tied output layer. The token embedding is used twice, looked up
// (and scaled by √d) at the input and multiplied as Eᵀ at the output; its
// gradient must be the sum of both uses.
func TestGradFairseqInputTied(t *testing.T) {
	idx := []int32{3, 0, 3, 1, 4, 2}
	pos := []int32{0, 1, 2, 0, 1, 0}
	targets := []int32{2, 0, -1, 4, 1, 3}
	table := fairseqPositions(3, 4)
	cases := []struct {
		name   string
		shapes [][]int
		f      func(g *G.ExprGraph, in []*G.Node) (*G.Node, error)
	}{
		{"AddPositions", [][]int{{6, 4}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			return nn.AddPositions(in[0], 2, &pos, table)
		}},
		{"MatMulT", [][]int{{3, 4}, {5, 4}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) { return nn.MatMulT(in[0], in[1]) }},
		{"Embed→nn.AddPositions→nn.MatMulT(E)→nn.CrossEntropy", [][]int{{5, 4}}, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
			e, err := nn.Embed(in[0], &idx)
			if err != nil {
				return nil, err
			}
			h, err := nn.AddPositions(e, 2, &pos, table)
			if err != nil {
				return nil, err
			}
			logits, err := nn.MatMulT(h, in[0])
			if err != nil {
				return nil, err
			}
			return nn.CrossEntropy(logits, &targets, nn.Xent{})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { nntest.GradCheck(t, c.shapes, nntest.Normal, c.f) })
	}
}
