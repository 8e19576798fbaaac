package train

import (
	"context"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/normtop/normtop/nn"
	"github.com/normtop/normtop/nn/nntest"
	"github.com/normtop/normtop/norm"
	"github.com/normtop/normtop/normspec"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// tinyResNet is a resnet small enough for finite differences over every
// weight: 6×5 images, so the stride-2 stages see odd sizes (6×5 → 3×3 →
// 2×2), and widths 2/3/4 so every stage's shortcut pads channels.
func tinyResNet() *resnet {
	return &resnet{h: 6, w: 5, classes: 3, widths: [3]int{2, 3, 4}, blocks: 1}
}

// resnetNet builds m's float64 training graph with the variant at every
// site, as the Runner does, on a batch of random images and targets.
func resnetNet(t *testing.T, m *resnet, variant string, batch int, seed int64) (*net, map[string]*norm.Layer) {
	t.Helper()
	ncfg, err := normspec.Parse(variant)
	if err != nil {
		t.Fatal(err)
	}
	layers := map[string]*norm.Layer{}
	for _, s := range m.Sites() {
		l, err := norm.NewLayer(ncfg, norm.Site{Name: s.Name, D: s.D, Heads: s.Heads, Dtype: tensor.Float64,
			SampleRows: s.SampleRows, Spatial: s.Spatial})
		if err != nil {
			t.Fatal(err)
		}
		layers[s.Name] = l
	}
	var weights []*tensor.Dense
	for i, w := range initWeights(m.Weights(), seed) {
		weights = append(weights, toTensor(w, tensor.Float64, m.Weights()[i].Shape...))
	}
	n, err := buildNet(netSpec{model: m, dt: tensor.Float64, batch: batch, rows: batch, pixels: m.h * m.w,
		weights: weights, train: true,
		norm: func(site string, x *G.Node) (*G.Node, []*G.Node, error) { return layers[site].Apply(x) }})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(seed + 100))
	for i, px := 0, n.b.images.Float64s(); i < len(px); i++ {
		px[i] = r.Float64()
	}
	for i := range n.b.targets {
		n.b.targets[i] = int32(r.Intn(m.classes))
	}
	return n, layers
}

// TestResNetGradFiniteDifferences: the gradient of the loss with respect
// to every weight of a small resnet (convolutions, norm γ/β, fc), as the
// trainer computes it, against central finite differences in float64.
// PowerNorm is left out: its backward pass is ν-corrected by design, not
// the forward pass's gradient (norm's own tests cover it).
func TestResNetGradFiniteDifferences(t *testing.T) {
	for _, variant := range []string{"none", "batchnorm", "pn-v"} {
		t.Run(variant, func(t *testing.T) {
			n, _ := resnetNet(t, tinyResNet(), variant, 3, 1)
			for _, g := range netGradCheck(t, n) {
				if g.diff > 1e-6*math.Max(g.scale, 1e-3) || math.IsNaN(g.diff) {
					t.Errorf("%s: max |numeric − analytic| = %.3g (largest gradient %.3g)", g.name, g.diff, g.scale)
				}
			}
		})
	}
}

// TestResNetFirstBNPerChannel: the first BN's batch statistics are per
// channel over B·H·W values of the first convolution's output, against a
// mean and biased variance computed directly from the NCHW tensor of a
// reference convolution; its running statistics move toward them (the
// variance unbiased, n = B·H·W), as BatchNorm2d's do.
func TestResNetFirstBNPerChannel(t *testing.T) {
	m := &resnet{h: 7, w: 6, classes: 4, widths: [3]int{5, 6, 7}, blocks: 1}
	const batch = 3
	n, layers := resnetNet(t, m, "batchnorm", batch, 2)
	if got := m.Sites()[0]; got.Name != "conv1" || got.D != 5 || got.SampleRows != 7*6 || !got.Spatial {
		t.Fatalf("first site %+v, want conv1 with 5 channels, 42 rows per sample, spatial", got)
	}
	for step := 1; step <= 2; step++ {
		if _, err := n.run(); err != nil {
			t.Fatal(err)
		}
		n.reset()
	}
	w := n.b.w["conv1.w"].Value().Data().([]float64)
	y, oh, ow := nntest.Conv3x3(n.b.images.Float64s(), batch, 1, m.h, m.w, w, 5, 1)
	rows := float64(batch * oh * ow)
	taps := layers["conv1"].Taps()
	if taps.N != batch*oh*ow || taps.D != 5 {
		t.Fatalf("taps over %d rows × %d features, want %d × 5", taps.N, taps.D, batch*oh*ow)
	}
	for c := 0; c < 5; c++ {
		var sum, sq float64
		for b := 0; b < batch; b++ {
			for _, v := range y[(b*5+c)*oh*ow : (b*5+c+1)*oh*ow] {
				sum += v
				sq += v * v
			}
		}
		mean := sum / rows
		vr := sq/rows - mean*mean
		if math.Abs(taps.BatchMean[c]-mean) > 1e-12 || math.Abs(taps.BatchVar[c]-vr) > 1e-12*(1+vr) {
			t.Errorf("channel %d: batch mean %v var %v, reference %v %v", c, taps.BatchMean[c], taps.BatchVar[c], mean, vr)
		}
		// step 2 sees the running state after step 1 (same batch): one
		// update from 0 and 1 at momentum 0.05
		wantMean, wantVar := 0.05*mean, 0.95+0.05*vr*rows/(rows-1)
		if math.Abs(taps.RunMean[c]-wantMean) > 1e-12 || math.Abs(taps.RunVar[c]-wantVar) > 1e-12 {
			t.Errorf("channel %d: running mean %v var %v, want %v %v", c, taps.RunMean[c], taps.RunVar[c], wantMean, wantVar)
		}
	}
}

// TestResNetSites: the first site is the BN after the first convolution,
// then two per block in forward order; widths, rows per sample and names
// follow the stages.
func TestResNetSites(t *testing.T) {
	m := &resnet{h: 28, w: 28, classes: 10, widths: [3]int{8, 16, 32}, blocks: 2}
	var got []string
	for _, s := range m.Sites() {
		got = append(got, s.Name)
		if !s.Spatial || s.Heads != 1 {
			t.Errorf("site %+v: want spatial, one group", s)
		}
	}
	want := "conv1 stage1.block0.bn1 stage1.block0.bn2 stage1.block1.bn1 stage1.block1.bn2 " +
		"stage2.block0.bn1 stage2.block0.bn2 stage2.block1.bn1 stage2.block1.bn2 " +
		"stage3.block0.bn1 stage3.block0.bn2 stage3.block1.bn1 stage3.block1.bn2"
	if strings.Join(got, " ") != want {
		t.Errorf("sites %q,\nwant %q", got, want)
	}
	for _, c := range []struct {
		i, d, rows int
	}{{0, 8, 784}, {1, 8, 784}, {5, 16, 196}, {12, 32, 49}} {
		if s := m.Sites()[c.i]; s.D != c.d || s.SampleRows != c.rows {
			t.Errorf("site %s: %d channels, %d rows per sample; want %d, %d", s.Name, s.D, s.SampleRows, c.d, c.rows)
		}
	}
}

// TestResNetMemoryEstimate: the activation count memory.go's check uses is
// a floor on what a training step of the preset's network really holds
// (every op output of the graph and the convolutions' patch matrices,
// which it counts as activations too), and not far below it.
func TestResNetMemoryEstimate(t *testing.T) {
	m := newResNet(28, 28, 10)
	const batch = 2
	n, _ := resnetNet(t, m, "batchnorm", batch, 1)
	if _, err := n.run(); err != nil {
		t.Fatal(err)
	}
	e, ok := n.eng.(*nn.Executor)
	if !ok {
		t.Skipf("engine %T", n.eng)
	}
	held := float64(e.HeldFloats())
	est := m.activations() * 2 * batch // a value and a gradient per image
	t.Logf("estimate %.0f, held %.0f", est, held)
	if est > held || est < held/2 {
		t.Errorf("estimate %.0f values for a training step of %d images, the graph holds %.0f", est, batch, held)
	}
}

// TestResNetLearns trains the resnet preset on real MNIST for a short
// while (120 steps) with batchnorm and pn-v and wants the train loss
// well below its start; the run's first layer is conv1.
func TestResNetLearns(t *testing.T) {
	cfg := ResNetConfig()
	cfg.Variants = []string{"batchnorm", "pn-v"}
	want := 0.7
	cfg.Steps = 120
	if raceBuild {
		// 30 steps under -race: far enough to see learning, not to reach
		// 0.7× (the full test runs in CI's non-race stage)
		cfg.Steps, want = 30, 0.95
	}
	cfg.EvalEvery, cfg.EvalSize, cfg.TestSize = cfg.Steps, 256, 256
	r, err := NewRunner(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if l := r.Meta().Layers; len(l) != 7 || l[0] != "conv1" {
		t.Errorf("layers %q, want 7 starting with conv1", l)
	}
	for v, fs := range collect(t, context.Background(), r, nil) {
		first, last := firstLast(fs, 10)
		val := fs[len(fs)-1].Eval[0]
		t.Logf("resnet %s: train loss %.3f → %.3f over %d steps; val loss %.3f accuracy %.4f",
			cfg.Variants[v], first, last, len(fs), val.Loss, val.Metric)
		if !(last < want*first) {
			t.Errorf("%s: loss %.3f → %.3f, want below %g× the start", cfg.Variants[v], first, last, want)
		}
	}
}

// TestResNetEvalUsesRunningStatistics: once pn-v's running ψ² has
// converged on a fixed batch (its EMA has no n/(n−1) factor, so it
// converges to the batch's ψ² exactly), the forward-only eval graph, which
// normalises with the running statistics, gives the training graph's
// logits: the image sites' layout is the same in both graphs.
func TestResNetEvalUsesRunningStatistics(t *testing.T) {
	m := &resnet{h: 8, w: 7, classes: 3, widths: [3]int{2, 3, 4}, blocks: 1}
	const batch = 4
	tr, layers := resnetNet(t, m, "pn-v", batch, 3)
	for i := 0; i < 300; i++ { // 0.9^300 ≈ 2e-14 of the initial ψ² remains
		if _, err := tr.run(); err != nil {
			t.Fatal(err)
		}
		tr.reset()
	}
	if _, err := tr.run(); err != nil {
		t.Fatal(err)
	}
	want := append([]float64(nil), tr.eng.Value(tr.logits).Data().([]float64)...)
	var weights []*tensor.Dense
	for _, p := range tr.params[:len(m.Weights())] {
		weights = append(weights, p.Value().(*tensor.Dense))
	}
	ev, err := buildNet(netSpec{model: m, dt: tensor.Float64, batch: batch, rows: batch, pixels: m.h * m.w, weights: weights,
		norm: func(site string, x *G.Node) (*G.Node, []*G.Node, error) { return layers[site].Apply(x) }})
	if err != nil {
		t.Fatal(err)
	}
	copy(ev.b.images.Float64s(), tr.b.images.Float64s())
	copy(ev.b.targets, tr.b.targets)
	for _, l := range layers {
		l.SetTraining(false)
	}
	if _, err := ev.run(); err != nil {
		t.Fatal(err)
	}
	for i, v := range ev.eng.Value(ev.logits).Data().([]float64) {
		if math.Abs(v-want[i]) > 1e-9*(1+math.Abs(want[i])) {
			t.Fatalf("eval logit %d = %.12g, training graph %.12g", i, v, want[i])
		}
	}
}

// TestResNetOnIDXSet: --model resnet on an IDX directory of odd-sized
// images (9×7 → 5×4 → 3×2 through the strided stages) trains through the
// Runner, every variant it allows, with the sites sized from the data.
func TestResNetOnIDXSet(t *testing.T) {
	c := ResNetConfig()
	c.DataPath = writeIDXSet(t, 5040, 10, 9, 7)
	c.Steps, c.Batch, c.EvalEvery, c.EvalSize, c.TestSize = 3, 4, 3, 8, 8
	r, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	var rows []int
	for _, s := range r.model.Sites() {
		rows = append(rows, s.SampleRows)
	}
	if want := []int{63, 63, 63, 20, 20, 6, 6}; !slices.Equal(rows, want) {
		t.Errorf("rows per sample by site %v, want %v", rows, want)
	}
	for v, fs := range collect(t, context.Background(), r, nil) {
		if len(fs) != 3 || len(fs[2].Eval) == 0 {
			t.Errorf("%s: %d frames, last eval %v", c.Variants[v], len(fs), fs[len(fs)-1].Eval)
		}
	}
}

// TestResNetVariants: on resnet every variant of the registry validates
// except the per-row family, which the other image models still train.
func TestResNetVariants(t *testing.T) {
	for _, v := range normspec.Variants() {
		spec, err := normspec.Parse(v.Name)
		if err != nil {
			t.Fatal(err)
		}
		c := ResNetConfig()
		c.Variants = []string{v.Name}
		err = c.Validate()
		if refused := spec.Kind.RowFamily(); (err != nil) != refused {
			t.Errorf("resnet with %s: %v, want refused %v", v.Name, err, refused)
		} else if refused && !strings.Contains(err.Error(), "not defined on resnet's image sites") {
			t.Errorf("resnet with %s: %v", v.Name, err)
		}
		c.Model = ModelCNN
		if err := c.Validate(); err != nil {
			t.Errorf("cnn with %s: %v", v.Name, err)
		}
	}
}
