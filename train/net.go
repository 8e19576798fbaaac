package train

import (
	"fmt"

	"github.com/normtop/normtop/datasets"
	"github.com/normtop/normtop/internal/graphop"
	"github.com/normtop/normtop/nn"
	"github.com/normtop/normtop/norm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// net is one compiled graph of one variant: a training graph (loss,
// gradients, dropout) or a forward-only eval graph, both bound to the
// variant's weight tensors.
type net struct {
	b      *builder
	logits *G.Node
	loss   *G.Node
	params []*G.Node // model weights in spec order, then the norm layers' γ/β
	grads  []*G.Node // same order as params; nil in eval graphs
	eng    engine

	paramVals, gradVals []*tensor.Dense // paramData's and gradData's, reused
}

// engine runs a net's graph: Run computes every node once, Value reads a
// node's output of the last run, Reset ends the run (after the trainer
// has read the outputs it needs).
type engine interface {
	Run() error
	Value(n *G.Node) G.Value
	Reset()
}

// newEngine builds the engine of every net: nn's executor. Tests swap in
// gorgonia's TapeMachine to hold the executor to it bit for bit.
var newEngine = func(g *G.ExprGraph) (engine, error) { return nn.NewExecutor(g) }

// normApply applies the variant's norm layer at a site to x and returns its
// output and its trainable parameters (γ/β nodes in x's graph).
type normApply func(site string, x *G.Node) (*G.Node, []*G.Node, error)

// seqApply hands out the variant's layer at a recurrent site as a
// norm.Seq, with γ/β nodes in graph g bound to the layer's tensors.
type seqApply func(g *G.ExprGraph, site string) (*norm.Seq, []*G.Node, error)

// netSpec is everything buildNet needs.
type netSpec struct {
	model   model
	dt      tensor.Dtype
	batch   int             // examples (image models) or sequences (transformer)
	rows    int             // logits rows: batch, or batch·seq
	tokens  int             // token models: input ids per batch (batch·seq)
	padded  bool            // batches carry a padding mask (builder.real)
	layout  bool            // token-budget batches: a Layout per batch (net.setLayout)
	pixels  int             // image models: H·W
	weights []*tensor.Dense // the variant's weights, in model.Weights() order
	norm    normApply
	seqNorm seqApply // recurrent sites (lstm); nil for models without
	train   bool
	dropP   float64
	rng     *nn.Stream // dropout masks (training graphs)
	xent    nn.Xent    // the loss's reduction and smoothing (training graphs)
}

func buildNet(s netSpec) (*net, error) {
	g := G.NewGraph()
	specs := s.model.Weights()
	if len(specs) != len(s.weights) {
		return nil, fmt.Errorf("model %s: %d weights, %d tensors", s.model.Name(), len(specs), len(s.weights))
	}
	b := &builder{g: g, dt: s.dt, batch: s.batch, w: map[string]*G.Node{}, targets: make([]int32, s.rows)}
	n := &net{b: b}
	for i, ws := range specs {
		node := G.NodeFromAny(g, s.weights[i], G.WithName(ws.Name))
		b.w[ws.Name] = node
		n.params = append(n.params, node)
	}
	var normParams []*G.Node
	b.norm = func(site string, x *G.Node) (*G.Node, error) {
		y, p, err := s.norm(site, x)
		if err != nil {
			return nil, fmt.Errorf("norm site %s: %w", site, err)
		}
		normParams = append(normParams, p...)
		return y, nil
	}
	b.seqNorm = func(site string) (*norm.Seq, []*G.Node, error) {
		if s.seqNorm == nil {
			return nil, nil, fmt.Errorf("norm site %s: no recurrent layers in this network", site)
		}
		q, p, err := s.seqNorm(g, site)
		if err != nil {
			return nil, nil, fmt.Errorf("norm site %s: %w", site, err)
		}
		normParams = append(normParams, p...)
		return q, p, nil
	}
	if s.pixels > 0 {
		b.images = graphop.NewDense(s.dt, s.batch, s.pixels)
	} else {
		b.tokens = make([]int32, s.tokens)
		if s.padded {
			b.real = make([]bool, s.tokens)
		}
		if s.layout {
			b.layout, b.pos = &nn.Layout{}, make([]int32, s.tokens)
		}
	}
	if s.train {
		b.dropP, b.rng = s.dropP, s.rng
	}
	logits, err := s.model.Forward(b)
	if err != nil {
		return nil, err
	}
	n.logits = logits
	if n.loss, err = nn.CrossEntropy(logits, &b.targets, s.xent); err != nil {
		return nil, err
	}
	n.params = append(n.params, normParams...)
	if s.train {
		if n.grads, err = G.Grad(n.loss, n.params...); err != nil {
			return nil, fmt.Errorf("model %s: gradients: %w", s.model.Name(), err)
		}
	}
	if n.eng, err = newEngine(g); err != nil {
		return nil, fmt.Errorf("model %s: %w", s.model.Name(), err)
	}
	return n, nil
}

// run executes the graph once and returns what its loss measured: the
// negative log-likelihood as a mean over the real targets (whatever the
// loss the gradients come from sums or smooths) and their count. The
// caller reads logits and gradients, then calls reset.
func (n *net) run() (nn.XentResult, error) {
	if err := n.eng.Run(); err != nil {
		return nn.XentResult{}, err
	}
	r, ok := nn.LastXent(n.loss)
	if !ok {
		return nn.XentResult{}, fmt.Errorf("loss node %s is not a cross-entropy", n.loss.Op())
	}
	return r, nil
}

func (n *net) reset() { n.eng.Reset() }

// paramData and gradData are the parameters' tensors and, after run,
// their gradients', in params order, in slices the net keeps (a step
// allocates nothing for them). The weights are updated in place; the
// gradients are overwritten by the next run.
func (n *net) paramData() ([]*tensor.Dense, error) {
	n.paramVals = n.paramVals[:0]
	for _, p := range n.params {
		d, err := graphop.AsDense(p.Name(), p.Value())
		if err != nil {
			return nil, err
		}
		n.paramVals = append(n.paramVals, d)
	}
	return n.paramVals, nil
}

func (n *net) gradData() ([]*tensor.Dense, error) {
	n.gradVals = n.gradVals[:0]
	for i, g := range n.grads {
		d, err := graphop.AsDense(n.params[i].Name(), n.eng.Value(g))
		if err != nil {
			return nil, fmt.Errorf("gradient of %s: %w", n.params[i].Name(), err)
		}
		n.gradVals = append(n.gradVals, d)
	}
	return n.gradVals, nil
}

// setImages copies a batch of pixels (float32, as the datasets deliver
// them) into the graph's input tensor.
func (n *net) setImages(x []float32) {
	switch n.b.images.Dtype() {
	case tensor.Float32:
		copy(n.b.images.Float32s(), x)
	case tensor.Float64:
		d := n.b.images.Float64s()
		for i, v := range x {
			d[i] = float64(v)
		}
	}
}

// setImageRows fills the graph's input with images [from, from+rows) of s,
// scaled as setImages's pixels are, and zero images after them (an
// evaluation batch's padding).
func (n *net) setImageRows(s *datasets.ImageSplit, from, rows int) {
	px := s.RowLen()
	switch n.b.images.Dtype() {
	case tensor.Float32:
		d := n.b.images.Float32s()
		s.Scale(d[:rows*px], from, from+rows)
		clear(d[rows*px:])
	case tensor.Float64:
		d := n.b.images.Float64s()
		row := make([]float32, px)
		for i := range rows {
			s.Scale(row, from+i, from+i+1)
			for j, v := range row {
				d[i*px+j] = float64(v)
			}
		}
		clear(d[rows*px:])
	}
}

func (n *net) setLabels(y []uint8) {
	for i, v := range y {
		n.b.targets[i] = int32(v)
	}
}

// setLayout sets the next token-budget batch's split into sequences and
// its positions.
func (n *net) setLayout(l nn.Layout) {
	*n.b.layout = l
	l.Positions(n.b.pos)
}

// setTokens copies a batch of token ids, its targets and, for padded
// batches, its mask (nil: every row real).
func (n *net) setTokens(in, target []int32, mask []bool) {
	copy(n.b.tokens, in)
	copy(n.b.targets, target)
	if n.b.real != nil {
		if mask == nil {
			for i := range n.b.real {
				n.b.real[i] = true
			}
		} else {
			copy(n.b.real, mask)
		}
	}
}

// correct counts rows whose arg-max logit is the target.
func (n *net) correct() int {
	c := n.logits.Shape()[1]
	hits := 0
	logits, err := graphop.AsDense("logits", n.eng.Value(n.logits))
	if err != nil {
		return 0
	}
	switch logits.Dtype() {
	case tensor.Float32:
		hits = argmaxHits(logits.Float32s(), n.b.targets, c)
	case tensor.Float64:
		hits = argmaxHits(logits.Float64s(), n.b.targets, c)
	}
	return hits
}

func argmaxHits[T nn.Float](x []T, targets []int32, c int) int {
	hits := 0
	for i, t := range targets {
		row := x[i*c : (i+1)*c]
		best := 0
		for k, v := range row {
			if v > row[best] {
				best = k
			}
		}
		if int32(best) == t {
			hits++
		}
	}
	return hits
}

// seqLayers is the seqApply of a variant whose layers are bySite: a new
// norm.Seq on the site's layer for each graph, and γ/β input nodes bound to
// the layer's own tensors (as norm.Layer.Apply makes them).
func seqLayers(bySite map[string]*norm.Layer) seqApply {
	return func(g *G.ExprGraph, site string) (*norm.Seq, []*G.Node, error) {
		l, ok := bySite[site]
		if !ok {
			return nil, nil, fmt.Errorf("no layer for site %s", site)
		}
		q, err := l.NewSeq()
		if err != nil {
			return nil, nil, err
		}
		gam, bet := l.Params()
		if gam == nil {
			return q, nil, nil
		}
		d := l.Site().D
		gn := G.NewVector(g, gam.Dtype(), G.WithShape(d), G.WithValue(gam), G.WithName(site+".gamma"))
		bn := G.NewVector(g, bet.Dtype(), G.WithShape(d), G.WithValue(bet), G.WithName(site+".beta"))
		return q, []*G.Node{gn, bn}, nil
	}
}
