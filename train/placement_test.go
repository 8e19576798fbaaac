package train

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/normtop/normtop/norm"
	"github.com/normtop/normtop/normspec"
	"github.com/normtop/normtop/probes"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestPlacementSites: each placement's norm sites, in forward order, and
// the weights each site feeds (gw_norm). Post and deepnorm have no final
// norm; sandwich has a second norm on each sub-layer's output.
func TestPlacementSites(t *testing.T) {
	for _, tc := range []struct {
		p     Placement
		sites string
		feeds string
	}{
		{PlacePre, "block0.ln1 block0.ln2 block1.ln1 block1.ln2 final",
			"block0.attn.qkv.w block0.ffn.fc.w block1.attn.qkv.w block1.ffn.fc.w out.w"},
		{PlacePost, "block0.ln1 block0.ln2 block1.ln1 block1.ln2",
			"block0.ffn.fc.w block1.attn.qkv.w block1.ffn.fc.w out.w"},
		{PlaceDeepNorm, "block0.ln1 block0.ln2 block1.ln1 block1.ln2",
			"block0.ffn.fc.w block1.attn.qkv.w block1.ffn.fc.w out.w"},
		{PlaceSandwich, "block0.ln1 block0.ln1b block0.ln2 block0.ln2b block1.ln1 block1.ln1b block1.ln2 block1.ln2b final",
			"block0.attn.qkv.w - block0.ffn.fc.w - block1.attn.qkv.w - block1.ffn.fc.w - out.w"},
	} {
		m := newTransformer(7, 8, 2, 2, 4, tc.p)
		var names, feeds []string
		for _, s := range m.Sites() {
			names = append(names, s.Name)
			f := strings.Join(m.feeds(s.Name), ",")
			if f == "" {
				f = "-"
			}
			feeds = append(feeds, f)
		}
		if got := strings.Join(names, " "); got != tc.sites {
			t.Errorf("%s: sites %s, want %s", tc.p, got, tc.sites)
		}
		if got := strings.Join(feeds, " "); got != tc.feeds {
			t.Errorf("%s: feeds %s, want %s", tc.p, got, tc.feeds)
		}
	}
}

// TestDeepNormInit: α and β by their formulas, and the drawn weights'
// standard deviations against Xavier's with gain β; the queries and keys,
// and every weight of the other placements, as before.
func TestDeepNormInit(t *testing.T) {
	if a, b := deepNormAlpha(6), deepNormBeta(6); math.Abs(a-math.Pow(12, 0.25)) > 1e-15 || math.Abs(b-1/math.Pow(48, 0.25)) > 1e-15 {
		t.Fatalf("α(6) %v β(6) %v", a, b)
	}
	const d, n = 64, 6
	beta := deepNormBeta(n)
	m := newTransformer(50, d, n, 4, 16, PlaceDeepNorm)
	pre := newTransformer(50, d, n, 4, 16, PlacePre)
	w, wPre := initModel(m, 3), initModel(pre, 3)
	specs := m.Weights()
	sd := func(xs []float64, keep func(k int) bool) float64 {
		var s2 float64
		c := 0
		for k, x := range xs {
			if keep(k) {
				s2 += x * x
				c++
			}
		}
		return math.Sqrt(s2 / float64(c))
	}
	all := func(int) bool { return true }
	for i, s := range specs {
		if len(s.Shape) != 2 || !strings.HasPrefix(s.Name, "block") {
			continue
		}
		in, out := s.Shape[0], s.Shape[1]
		check := func(what string, got, want float64) {
			if math.Abs(got/want-1) > 0.04 {
				t.Errorf("%s %s: std %.5f, want %.5f", s.Name, what, got, want)
			}
		}
		switch {
		case strings.HasSuffix(s.Name, "attn.qkv.w"):
			check("values", sd(w[i], func(k int) bool { return k%out >= 2*d }), beta*math.Sqrt(2.0/(2*d)))
			check("queries and keys", sd(w[i], func(k int) bool { return k%out < 2*d }), 0.02)
		case strings.HasSuffix(s.Name, "attn.proj.w"), strings.HasSuffix(s.Name, "ffn.fc.w"), strings.HasSuffix(s.Name, "ffn.proj.w"):
			check("xavier β", sd(w[i], all), beta*math.Sqrt(2/float64(in+out)))
		}
	}
	// The embeddings and the output layer are the pre-LN model's, draw for draw.
	for i, s := range specs {
		if !strings.HasPrefix(s.Name, "block") && fmt.Sprint(w[i][:3]) != fmt.Sprint(wPre[i][:3]) {
			t.Errorf("%s differs from pre-LN's init", s.Name)
		}
	}
}

// TestSandwichSitesTrain: the second norms of sandwich receive gradients
// and their gains move.
func TestSandwichSitesTrain(t *testing.T) {
	c := tinyTransformer()
	c.Variants, c.Steps, c.EvalEvery, c.Placement = []string{"layernorm"}, 3, 3, PlaceSandwich
	r, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Meta().Config["placement"]; got != "sandwich" {
		t.Errorf("header placement %q", got)
	}
	fs := collect(t, context.Background(), r, nil)[0]
	last := fs[len(fs)-1]
	for l, name := range r.Meta().Layers {
		if !strings.HasSuffix(name, "b") {
			continue
		}
		v := last.Layers[l]
		if !(v[probes.DyVar] > 0) || !(v[probes.GammaDrift] > 0) {
			t.Errorf("%s: dy_var %v, gamma_drift %v: not trained", name, v[probes.DyVar], v[probes.GammaDrift])
		}
	}
}

// TestPlacementGradCheck: in every placement, the gradient of a tiny
// float64 transformer's loss with respect to every weight and every norm
// gain and bias agrees with central finite differences.
func TestPlacementGradCheck(t *testing.T) {
	for _, p := range Placements {
		t.Run(string(p), func(t *testing.T) { placementGradCheck(t, p) })
	}
}

func placementGradCheck(t *testing.T, p Placement) {
	const vocab, d, layers, heads, seq, batch = 6, 4, 2, 2, 3, 2
	m := newTransformer(vocab, d, layers, heads, seq, p)
	r := rand.New(rand.NewSource(7))
	var weights []*tensor.Dense
	for _, s := range m.Weights() {
		v := make([]float64, tensor.Shape(s.Shape).TotalSize())
		for k := range v {
			v[k] = 0.5 * r.NormFloat64() // far from init, so every path matters
		}
		weights = append(weights, toTensor(v, tensor.Float64, s.Shape...))
	}
	ln, err := normspec.Parse("layernorm")
	if err != nil {
		t.Fatal(err)
	}
	sites := map[string]*norm.Layer{}
	for _, s := range m.Sites() {
		if sites[s.Name], err = norm.NewLayer(ln, norm.Site{Name: s.Name, D: s.D, Heads: s.Heads, Dtype: tensor.Float64}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := buildNet(netSpec{model: m, dt: tensor.Float64, batch: batch, rows: batch * seq, tokens: batch * seq,
		weights: weights, train: true, norm: func(site string, x *G.Node) (*G.Node, []*G.Node, error) { return sites[site].Apply(x) }})
	if err != nil {
		t.Fatal(err)
	}
	in, target := make([]int32, batch*seq), make([]int32, batch*seq)
	for k := range in {
		in[k], target[k] = int32(r.Intn(vocab)), int32(r.Intn(vocab))
	}
	n.setTokens(in, target, nil)
	params, err := n.paramData()
	if err != nil {
		t.Fatal(err)
	}
	for _, pv := range params[len(weights):] { // γ, β away from 1, 0
		for k, x := range pv.Float64s() {
			pv.Float64s()[k] = x + 0.3*r.NormFloat64()
		}
	}
	for i, g := range netGradCheck(t, n) {
		if rel := g.diff / math.Max(g.scale, 1e-9); rel > 1e-6 || math.IsNaN(rel) {
			t.Errorf("%s param %d (%s): relative error %.3g", p, i, g.name, rel)
		}
	}
}

// TestClassifierPlacements: the classifier takes every placement, with the
// sites and the header key of each, and trains to a finite loss.
func TestClassifierPlacements(t *testing.T) {
	for _, p := range Placements {
		c := tinyClassifier(t)
		c.Variants, c.Steps, c.Placement = []string{"layernorm"}, 2, p
		r, err := NewRunner(c)
		if err != nil {
			t.Fatal(err)
		}
		layers := r.Meta().Layers
		if hasFinal := layers[len(layers)-1] == "final"; hasFinal != p.finalNorm() || r.Meta().Config["placement"] != string(p) {
			t.Errorf("%s: sites %v, header placement %q", p, layers, r.Meta().Config["placement"])
		}
		fs := collect(t, context.Background(), r, nil)[0]
		if end := fs[len(fs)-1]; end.Status != probes.Done || math.IsNaN(end.TrainLoss) {
			t.Errorf("%s: ended %v, loss %v", p, end.Status, end.TrainLoss)
		}
	}
}

// TestPlacementValidate: a placement on a model without blocks, or one
// that does not exist, is a configuration error naming it.
func TestPlacementValidate(t *testing.T) {
	mlp := MNISTConfig(ModelMLP)
	mlp.Placement = PlacePost
	odd := DefaultConfig()
	odd.Placement = "middle"
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{mlp, "model mlp has no Transformer blocks"},
		{odd, `placement "middle": want pre, post, sandwich, deepnorm`},
	} {
		if err := tc.c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
	if err := MNISTConfig(ModelCNN).Validate(); err != nil {
		t.Errorf("cnn without a placement: %v", err)
	}
}
