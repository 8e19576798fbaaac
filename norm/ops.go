package norm

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The gorgonia side. TapeMachine differentiates only symbolically, so the
// forward op's SymDiff adds a separate backward op that computes dx and, in
// the same pass, dγ and dβ; two small read ops hand dγ and dβ to the graph.
// They take the dx node as input so that the tape runs them after it. Every
// op carries its layer's and instance's ids in Hash and String: the ops are
// stateful, and gorgonia merges nodes whose ops hash alike.

var (
	_ gorgonia.Op              = fwdOp{}
	_ gorgonia.SDOp            = fwdOp{}
	_ gorgonia.UsePreallocDoer = fwdOp{}
	_ gorgonia.UsePreallocDoer = bwdOp{}
	_ gorgonia.UsePreallocDoer = readOp{}
)

// Apply adds the layer to x's graph. x is an [N, D] matrix node. For variants
// with γ/β it creates input nodes in x's graph bound to the layer's own γ/β
// tensors and returns them as params, so Apply can be called on a training
// graph and on a forward-only eval graph sharing the weights. The forward op
// updates running state only in training mode; its backward op fills the
// Grad taps and (PowerNorm) updates ν only in training mode.
func (l *Layer) Apply(x *gorgonia.Node) (y *gorgonia.Node, params []*gorgonia.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			y, params, err = nil, nil, fmt.Errorf("norm: %s: building the op: %v", l.label(), r)
		}
	}()
	if x == nil {
		return nil, nil, fmt.Errorf("norm: %s: Apply: nil input node", l.label())
	}
	if x.Dims() != 2 || x.Shape()[1] != l.d {
		return nil, nil, fmt.Errorf("norm: %s: Apply: input shape %v, want [N, %d]", l.label(), x.Shape(), l.d)
	}
	if x.Dtype() != l.site.Dtype {
		return nil, nil, fmt.Errorf("norm: %s: Apply: input dtype %v, layer dtype %v", l.label(), x.Dtype(), l.site.Dtype)
	}
	in := l.newInstance()
	children := []*gorgonia.Node{x}
	if l.cfg.Kind.HasAffine() {
		g := x.Graph()
		base := fmt.Sprintf("%s#%d", l.site.Name, l.id)
		gam := gorgonia.NewVector(g, l.site.Dtype, gorgonia.WithShape(l.d), gorgonia.WithValue(l.gamma), gorgonia.WithName(base+".gamma"))
		bet := gorgonia.NewVector(g, l.site.Dtype, gorgonia.WithShape(l.d), gorgonia.WithValue(l.beta), gorgonia.WithName(base+".beta"))
		params = []*gorgonia.Node{gam, bet}
		children = append(children, gam, bet)
	}
	y, err = gorgonia.ApplyOp(fwdOp{in}, children...)
	if err != nil {
		return nil, nil, fmt.Errorf("norm: %s: Apply: %w", l.label(), err)
	}
	return y, params, nil
}

// fwdOp: y = norm(x[, γ, β]).
type fwdOp struct{ in *instance }

func (o fwdOp) name() string {
	return fmt.Sprintf("norm.%s#%d.%d", o.in.l.cfg.Name(), o.in.l.id, o.in.id)
}
func (o fwdOp) Arity() int {
	if o.in.l.cfg.Kind.HasAffine() {
		return 3
	}
	return 1
}
func (o fwdOp) Type() hm.Type {
	if o.Arity() == 3 {
		return hm.NewFnType(matType(), vecType(), vecType(), matType())
	}
	return hm.NewFnType(matType(), matType())
}
func (o fwdOp) InferShape(ns ...gorgonia.DimSizer) (tensor.Shape, error) {
	if s, ok := matShape(ns, o.Arity()); ok {
		return s, nil
	}
	return nil, shapeError(o.name(), o.Arity(), ns)
}
func (o fwdOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, vals...)
}
func (o fwdOp) UsePreallocDo(prealloc gorgonia.Value, vals ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != o.Arity() {
		return nil, arityError(o.name(), o.Arity(), len(vals))
	}
	if o.in.l.site.Dtype == tensor.Float32 {
		return fwdDo[float32](o, prealloc, vals)
	}
	return fwdDo[float64](o, prealloc, vals)
}

func fwdDo[T float](o fwdOp, prealloc gorgonia.Value, vals []gorgonia.Value) (gorgonia.Value, error) {
	l := o.in.l
	shp := vals[0].Shape()
	if len(shp) != 2 || shp[1] != l.d {
		return nil, fmt.Errorf("norm: %s: input shape %v, want [N, %d]", l.label(), shp, l.d)
	}
	n := shp[0]
	x, err := denseIn[T](vals[0], l, "input", dims{n, l.d})
	if err != nil {
		return nil, err
	}
	var gam, bet []T
	if len(vals) == 3 {
		if gam, err = denseIn[T](vals[1], l, "γ", dims{-1, l.d}); err != nil {
			return nil, err
		}
		if bet, err = denseIn[T](vals[2], l, "β", dims{-1, l.d}); err != nil {
			return nil, err
		}
	}
	out, y := outBuf(prealloc, dims{n, l.d}, x)
	if err := forward(o.in, x, gam, bet, y, n); err != nil {
		return nil, err
	}
	return out, nil
}

func (o fwdOp) ReturnsPtr() bool      { return false }
func (o fwdOp) CallsExtern() bool     { return false }
func (o fwdOp) OverwritesInput() int  { return -1 }
func (o fwdOp) WriteHash(h hash.Hash) { opHash(h, o.name()) }
func (o fwdOp) Hashcode() uint32      { return opHashcode(o.name()) }
func (o fwdOp) String() string        { return o.name() }

func (o fwdOp) DiffWRT(inputs int) []bool {
	w := make([]bool, inputs)
	for i := range w {
		w[i] = true
	}
	return w
}

func (o fwdOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if len(inputs) != o.Arity() {
		return nil, fmt.Errorf("%s: SymDiff with %d inputs, want %d", o.name(), len(inputs), o.Arity())
	}
	bw := bwdOp{o.in}
	children := gorgonia.Nodes{inputs[0]}
	if o.Arity() == 3 {
		children = append(children, inputs[1])
	}
	children = append(children, grad)
	dx, err := gorgonia.ApplyOp(bw, children...)
	if err != nil {
		return nil, err
	}
	if o.Arity() == 1 {
		return gorgonia.Nodes{dx}, nil
	}
	dg, err := gorgonia.ApplyOp(readOp{o.in, 0}, dx)
	if err != nil {
		return nil, err
	}
	db, err := gorgonia.ApplyOp(readOp{o.in, 1}, dx)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx, dg, db}, nil
}

// bwdOp: dx from (x[, γ], g); stashes dγ, dβ in the instance.
type bwdOp struct{ in *instance }

func (o bwdOp) name() string {
	return fmt.Sprintf("norm.%s.dx#%d.%d", o.in.l.cfg.Name(), o.in.l.id, o.in.id)
}
func (o bwdOp) Arity() int {
	if o.in.l.cfg.Kind.HasAffine() {
		return 3
	}
	return 2
}
func (o bwdOp) Type() hm.Type {
	if o.Arity() == 3 {
		return hm.NewFnType(matType(), vecType(), matType(), matType())
	}
	return hm.NewFnType(matType(), matType(), matType())
}
func (o bwdOp) InferShape(ns ...gorgonia.DimSizer) (tensor.Shape, error) {
	if s, ok := matShape(ns, o.Arity()); ok {
		return s, nil
	}
	return nil, shapeError(o.name(), o.Arity(), ns)
}
func (o bwdOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, vals...)
}
func (o bwdOp) UsePreallocDo(prealloc gorgonia.Value, vals ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != o.Arity() {
		return nil, arityError(o.name(), o.Arity(), len(vals))
	}
	if o.in.l.site.Dtype == tensor.Float32 {
		return bwdDo[float32](o, prealloc, vals)
	}
	return bwdDo[float64](o, prealloc, vals)
}

func bwdDo[T float](o bwdOp, prealloc gorgonia.Value, vals []gorgonia.Value) (gorgonia.Value, error) {
	l := o.in.l
	shp := vals[0].Shape()
	if len(shp) != 2 || shp[1] != l.d {
		return nil, fmt.Errorf("norm: %s: backward input shape %v, want [N, %d]", l.label(), shp, l.d)
	}
	n := shp[0]
	x, err := denseIn[T](vals[0], l, "backward input", dims{n, l.d})
	if err != nil {
		return nil, err
	}
	var gam []T
	if len(vals) == 3 {
		if gam, err = denseIn[T](vals[1], l, "γ", dims{-1, l.d}); err != nil {
			return nil, err
		}
	}
	g, err := denseIn[T](vals[len(vals)-1], l, "upstream gradient", dims{n, l.d})
	if err != nil {
		return nil, err
	}
	out, dx := outBuf(prealloc, dims{n, l.d}, x, g)
	if err := backward(o.in, x, gam, g, dx, n); err != nil {
		return nil, err
	}
	return out, nil
}

func (o bwdOp) ReturnsPtr() bool      { return false }
func (o bwdOp) CallsExtern() bool     { return false }
func (o bwdOp) OverwritesInput() int  { return -1 }
func (o bwdOp) WriteHash(h hash.Hash) { opHash(h, o.name()) }
func (o bwdOp) Hashcode() uint32      { return opHashcode(o.name()) }
func (o bwdOp) String() string        { return o.name() }

// readOp hands out dγ (which = 0) or dβ (which = 1) computed by the
// backward op whose output is its input.
type readOp struct {
	in    *instance
	which int
}

func (o readOp) name() string {
	w := "dgamma"
	if o.which == 1 {
		w = "dbeta"
	}
	return fmt.Sprintf("norm.%s.%s#%d.%d", o.in.l.cfg.Name(), w, o.in.l.id, o.in.id)
}
func (o readOp) Arity() int    { return 1 }
func (o readOp) Type() hm.Type { return hm.NewFnType(matType(), vecType()) }
func (o readOp) InferShape(ns ...gorgonia.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.in.l.d}, nil
}
func (o readOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, vals...)
}
func (o readOp) UsePreallocDo(prealloc gorgonia.Value, vals ...gorgonia.Value) (gorgonia.Value, error) {
	if o.in.l.site.Dtype == tensor.Float32 {
		return readDo[float32](o, prealloc)
	}
	return readDo[float64](o, prealloc)
}

func readDo[T float](o readOp, prealloc gorgonia.Value) (gorgonia.Value, error) {
	src := o.in.dgamma
	if o.which == 1 {
		src = o.in.dbeta
	}
	d := o.in.l.d
	if len(src) != d {
		return nil, fmt.Errorf("norm: %s: parameter gradient read before the backward pass", o.in.l.label())
	}
	out, data := outBuf[T](prealloc, dims{-1, d})
	for k, v := range src {
		data[k] = T(v)
	}
	return out, nil
}

func (o readOp) ReturnsPtr() bool      { return false }
func (o readOp) CallsExtern() bool     { return false }
func (o readOp) OverwritesInput() int  { return -1 }
func (o readOp) WriteHash(h hash.Hash) { opHash(h, o.name()) }
func (o readOp) Hashcode() uint32      { return opHashcode(o.name()) }
func (o readOp) String() string        { return o.name() }

// matShape is the output shape of an op whose output has its first input's
// [N, D] shape (both passes of a norm layer); false when the inputs are not
// arity of them, the first an [N, D] matrix. The error is built only then
// (shapeError): an op's name is formatted, which the hot path must not do.
func matShape(ns []gorgonia.DimSizer, arity int) (tensor.Shape, bool) {
	if len(ns) != arity {
		return nil, false
	}
	s, ok := ns[0].(tensor.Shape)
	if !ok || len(s) != 2 {
		return nil, false
	}
	return s.Clone(), true
}

// shapeError says why matShape refused ns.
func shapeError(name string, arity int, ns []gorgonia.DimSizer) error {
	if len(ns) != arity {
		return arityError(name, arity, len(ns))
	}
	return fmt.Errorf("%s: input must be an [N, D] matrix", name)
}

// arityError is the error of an op called with got inputs instead of want.
func arityError(name string, want, got int) error {
	return fmt.Errorf("%s: %d inputs, want %d", name, got, want)
}
