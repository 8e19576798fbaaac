package train

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/normtop/normtop/internal/graphop"
	"github.com/normtop/normtop/nn"
	"github.com/normtop/normtop/norm"
	"github.com/normtop/normtop/normspec"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// A model describes one network: its weights (with their initialisation),
// its norm sites, and how to build its forward pass into a graph. The same
// description builds the training graph and the forward-only eval graph of
// every variant; only the norm layers at the sites differ between variants.
type model interface {
	Name() string
	Weights() []weightSpec
	Sites() []site
	// Forward adds the forward pass for one batch to b's graph and returns
	// the logits, one row per prediction.
	Forward(b *builder) (*G.Node, error)
}

// site is a norm site: where a norm layer goes and how wide it is.
type site struct {
	Name  string // e.g. "fc1", "block0.ln1", "final"
	D     int
	Heads int // PowerNorm's default GroupScaling groups
	// SampleRows is how many consecutive rows belong to one sample: H·W for
	// an image site laid out as [B·H·W, C] rows, seq-len for a sequence
	// site, 1 (or 0) where every row is its own sample.
	SampleRows int
	// Spatial marks an image site: groupnorm's unit spans a sample's rows
	// (PyTorch's GroupNorm on [B,C,H,W]); elsewhere it is one row.
	Spatial bool
}

// normSite is the norm layer's view of a model site.
func normSite(s site, warmup int, dt tensor.Dtype) norm.Site {
	return norm.Site{Name: s.Name, D: s.D, Heads: s.Heads, Warmup: warmup, Dtype: dt,
		SampleRows: s.SampleRows, Spatial: s.Spatial}
}

// checkSites builds every variant's layer at every site of m once, before
// any weight is allocated, so that a variant that does not fit the model
// (groupnorm's groups not dividing d, instancenorm where a sample has one
// row, powernorm's groups not dividing d) is a *VariantError: a usage
// error that names the site, not a failure halfway through building.
func checkSites(cfg Config, specs []normspec.Config, m model, dt tensor.Dtype) error {
	for i, spec := range specs {
		for _, s := range m.Sites() {
			if _, err := norm.NewLayer(spec, normSite(s, cfg.Warmup, dt)); err != nil {
				return &VariantError{Spec: cfg.Variants[i], Err: fmt.Errorf("model %s: %w", m.Name(), err)}
			}
		}
	}
	return nil
}

// weightSpec is one weight tensor and its initial distribution: N(0, Std²)
// for Std > 0, zeros for Std = 0 (biases), and for Std < 0 the uniform
// U(Std, −Std) (Xavier-uniform layers; see uniformSpec).
type weightSpec struct {
	Name  string
	Shape []int
	Std   float64
}

// uniformSpec is a weight drawn from U(−bound, bound).
func uniformSpec(name string, bound float64, shape ...int) weightSpec {
	return weightSpec{name, shape, -bound}
}

// initWeights draws every weight from one RNG in the spec order, in float64,
// so that every variant (and every dtype) starts from the same numbers.
func initWeights(specs []weightSpec, seed int64) [][]float64 {
	r := rand.New(rand.NewSource(seed))
	out := make([][]float64, len(specs))
	for i, s := range specs {
		n := 1
		for _, d := range s.Shape {
			n *= d
		}
		out[i] = make([]float64, n)
		switch {
		case s.Std < 0:
			for k := range out[i] {
				out[i][k] = (1 - 2*r.Float64()) * s.Std
			}
		case s.Std > 0:
			for k := range out[i] {
				out[i][k] = r.NormFloat64() * s.Std
			}
		}
	}
	return out
}

// toTensor copies float64 values into a new tensor of dtype dt.
func toTensor(v []float64, dt tensor.Dtype, shape ...int) *tensor.Dense {
	t := graphop.NewDense(dt, shape...)
	switch d := t.Data().(type) {
	case []float32:
		for i, x := range v {
			d[i] = float32(x)
		}
	case []float64:
		copy(d, v)
	}
	return t
}

// xavier is the Xavier/Glorot uniform bound √(6/(fan_in+fan_out)).
func xavier(fanIn, fanOut int) float64 { return math.Sqrt(6 / float64(fanIn+fanOut)) }

// kaiming is the He initialisation std for a layer followed by ReLU.
func kaiming(fanIn int) float64 { return math.Sqrt(2 / float64(fanIn)) }

// linearSpecs are the weight and bias of a linear layer name: x·W + b.
func linearSpecs(name string, in, out int, std float64) []weightSpec {
	return []weightSpec{{name + ".w", []int{in, out}, std}, {name + ".b", []int{out}, 0}}
}

// builder is what a model's Forward builds with: the graph, the variant's
// weight nodes, the norm layer at each site, dropout (training graphs
// only) and the batch's input buffers, which the trainer rewrites before
// every run.
type builder struct {
	g     *G.ExprGraph
	dt    tensor.Dtype
	batch int
	w     map[string]*G.Node
	// norm applies the variant's layer at the named site.
	norm func(site string, x *G.Node) (*G.Node, error)
	// seqNorm hands out the variant's layer at a recurrent site (the
	// LSTM's N_h, N_c) as a norm.Seq, with its γ/β nodes (none without).
	seqNorm func(site string) (*norm.Seq, []*G.Node, error)
	// dropout: p and the RNG (nil: no dropout, as in eval graphs).
	dropP float64
	rng   *nn.Stream
	drops []*nn.DropoutSite

	images  *tensor.Dense // image models: [batch, H·W] pixels in [0,1]
	tokens  []int32       // transformer: batch·seq input ids
	targets []int32       // class ids or next tokens, one per logits row
	// real marks the token rows that are not padding (sentence and
	// document batches); nil when the model's batches have no padding.
	real []bool
	// layout splits the token rows into sequences and pos holds each
	// row's position: fixed for fixed batches (the model sets them), else
	// rewritten with every token-budget batch (net.setLayout).
	layout *nn.Layout
	pos    []int32
}

// seqLayout returns the token rows' layout, fixing it as batch sequences
// of seq rows when the trainer has not made it per-batch.
func (b *builder) seqLayout(seq int) (*nn.Layout, error) {
	if b.layout == nil {
		if len(b.tokens) != b.batch*seq {
			return nil, fmt.Errorf("%d tokens for batch %d × seq %d", len(b.tokens), b.batch, seq)
		}
		b.layout = &nn.Layout{Rows: b.batch, T: seq}
		b.pos = make([]int32, len(b.tokens))
		b.layout.Positions(b.pos)
	}
	return b.layout, nil
}

// realRows is the padding mask ops read when they run, or nil.
func (b *builder) realRows() *[]bool {
	if b.real == nil {
		return nil
	}
	return &b.real
}

func (b *builder) weight(name string) (*G.Node, error) {
	n, ok := b.w[name]
	if !ok {
		return nil, fmt.Errorf("model: no weight %q", name)
	}
	return n, nil
}

// layer is the weight name.w and bias name.b of layer name.
func (b *builder) layer(name string) (w, bias *G.Node, err error) {
	if w, err = b.weight(name + ".w"); err != nil {
		return nil, nil, err
	}
	if bias, err = b.weight(name + ".b"); err != nil {
		return nil, nil, err
	}
	return w, bias, nil
}

// linear is x·W + b for the weights name.w, name.b.
func (b *builder) linear(name string, x *G.Node) (*G.Node, error) {
	w, bias, err := b.layer(name)
	if err != nil {
		return nil, err
	}
	// x without an op is the model's input data (the mlp's images)
	y, err := nn.MatMul(x, w, x.Op() == nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return nn.AddBias(y, bias)
}

// dropout applies Dropout in training graphs and is the identity otherwise.
func (b *builder) dropout(x *G.Node) (*G.Node, error) {
	if b.rng == nil || b.dropP == 0 {
		return x, nil
	}
	y, op, err := nn.Dropout(x, b.dropP, b.rng)
	if err != nil {
		return nil, err
	}
	b.drops = append(b.drops, op)
	return y, nil
}

// chain applies steps in order, stopping at the first error.
func chain(x *G.Node, steps ...func(*G.Node) (*G.Node, error)) (*G.Node, error) {
	var err error
	for _, s := range steps {
		if x, err = s(x); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// columnStds is implemented by a model with a fused weight whose columns
// are initialised with different stds: colStds(name) gives one std per
// column (the last dimension) of that weight, nil for the others.
type columnStds interface{ colStds(weight string) []float64 }

// siteFeeder is implemented by a model that names, per norm site, the
// weight matrices its output multiplies (the gw_norm probe).
type siteFeeder interface{ feeds(site string) []string }

// initModel is initWeights for m, with the column stds of a columnStds
// model applied: each drawn N(0, Std²) value is rescaled to its column's
// std, so the draws (and every other weight) stay those of the same seed.
func initModel(m model, seed int64) [][]float64 {
	specs := m.Weights()
	out := initWeights(specs, seed)
	cs, ok := m.(columnStds)
	if !ok {
		return out
	}
	for i, s := range specs {
		col := cs.colStds(s.Name)
		if col == nil || s.Std == 0 {
			continue
		}
		for k := range out[i] {
			out[i][k] *= col[k%len(col)] / s.Std
		}
	}
	return out
}
