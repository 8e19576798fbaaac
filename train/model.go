package train

import (
	"fmt"
	"math"
	"math/rand"

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

// weightSpec is one weight tensor and its initial distribution: N(0, Std²),
// or zeros when Std is 0 (biases).
type weightSpec struct {
	Name  string
	Shape []int
	Std   float64
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
		if s.Std == 0 {
			continue
		}
		for k := range out[i] {
			out[i][k] = r.NormFloat64() * s.Std
		}
	}
	return out
}

// toTensor copies float64 values into a new tensor of dtype dt.
func toTensor(v []float64, dt tensor.Dtype, shape ...int) *tensor.Dense {
	t := newDense(dt, shape...)
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
	// dropout: p and the RNG (nil: no dropout, as in eval graphs).
	dropP float64
	rng   *rand.Rand
	drops []*DropoutOp

	images  *tensor.Dense // image models: [batch, H·W] pixels in [0,1]
	tokens  []int32       // transformer: batch·seq input ids
	targets []int32       // class ids or next tokens, one per logits row
	// real marks the token rows that are not padding (sentence and
	// document batches); nil when the model's batches have no padding.
	real []bool
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

// linear is x·W + b for the weights name.w, name.b.
func (b *builder) linear(name string, x *G.Node) (*G.Node, error) {
	w, err := b.weight(name + ".w")
	if err != nil {
		return nil, err
	}
	bias, err := b.weight(name + ".b")
	if err != nil {
		return nil, err
	}
	// x without an op is the model's input data (the mlp's images)
	y, err := MatMul(x, w, x.Op() == nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return AddBias(y, bias)
}

// dropout applies Dropout in training graphs and is the identity otherwise.
func (b *builder) dropout(x *G.Node) (*G.Node, error) {
	if b.rng == nil || b.dropP == 0 {
		return x, nil
	}
	y, op, err := Dropout(x, b.dropP, b.rng)
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
