package graphop

import (
	"fmt"
	"hash"
	"hash/fnv"
	"sync/atomic"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Op describes one graph op by its math: the shape it makes, its kernel
// for each element type and the ops of its gradient. Apply turns it into
// a gorgonia node; everything gorgonia asks of an op besides the math
// (arity, type, shape inference, hashing, buffer reuse, dtype dispatch,
// input checks) is answered here, once for every op.
//
// Every shape is fixed when the node is built: gorgonia's nodes have fixed
// shapes, and an op whose extent changes from batch to batch (token-budget
// batches) reads that from state it shares with the trainer (a Layout,
// index buffers), checked in Prepare.
type Op struct {
	// Kind names the op in errors and graph dumps ("ReLU"); every node gets
	// its own instance name, Kind#n.
	Kind string
	// Out is the output's shape; a scalar when it has no dimensions.
	Out tensor.Shape
	// Accumulates says the kernel adds into its output, which then starts
	// at zero on every run. Otherwise the kernel writes every element and
	// gets its previous output back as it was (a pass over it saved).
	Accumulates bool
	// Prepare, when set, runs before the kernel on every run: it checks
	// the state the op reads as it runs (indices, positions, targets, the
	// batch's layout) and takes what it needs of it.
	Prepare func() error
	// F32 and F64 are the kernel on float32 and float64 tensors.
	F32 Kernel[float32]
	F64 Kernel[float64]
	// Grad builds the gradient of every input from the upstream gradient
	// grad, as graph nodes (nil for an input DiffWRT rules out); nil: the
	// op is not differentiated (a gradient op: the models need only first
	// derivatives).
	Grad func(in G.Nodes, grad *G.Node) (G.Nodes, error)
	// DiffWRT says which inputs have a gradient; nil: all of them.
	DiffWRT []bool
	// State is the op's own state, for code that reads it off a node after
	// a run (nn.LastXent, through Of); the adapter does not touch it.
	State any
}

// Kernel is an op's math on one element type: it reads each input's
// values (in argument order; a scalar input arrives as a one-element
// slice) and writes the output's, which is as long as Op.Out (one element
// for a scalar output). An error is one the inputs' values or the op's
// state cause (the adapter has checked the inputs' sizes and dtype).
type Kernel[T Float] func(out []T, in [][]T) error

// Apply adds the op to the graph of its inputs.
func (d Op) Apply(in ...*G.Node) (*G.Node, error) {
	if d.F32 == nil || d.F64 == nil {
		return nil, fmt.Errorf("%s: no kernel", d.Kind)
	}
	if len(in) == 0 {
		return nil, fmt.Errorf("%s: no input", d.Kind)
	}
	o := &graphOp{def: d, name: instanceName(d.Kind), out: d.Out.Clone(), dtype: in[0].Dtype()}
	o.def.Out = o.out
	for _, n := range in {
		s := n.Shape()
		o.inDims = append(o.inDims, s.Dims())
		o.inSize = append(o.inSize, s.TotalSize())
		o.scalarIn = append(o.scalarIn, s.IsScalar())
	}
	return G.ApplyOp(o, in...)
}

// One is the gradient of a single input as Op.Grad returns it, from the
// node that computes it.
func One(n *G.Node, err error) (G.Nodes, error) {
	if err != nil {
		return nil, err
	}
	return G.Nodes{n}, nil
}

// Of returns the description n's op was built from; ok is false when n is
// not an Op's node (an input, or a gorgonia built-in).
func Of(n *G.Node) (d Op, ok bool) {
	o, ok := n.Op().(*graphOp)
	if !ok {
		return Op{}, false
	}
	return o.def, true
}

// opSeq makes every op instance unique: gorgonia deduplicates nodes by op
// hash and children, which would merge two dropout sites (or two embedding
// lookups with different index buffers) applied to the same input.
var opSeq atomic.Int64

func instanceName(kind string) string { return fmt.Sprintf("%s#%d", kind, opSeq.Add(1)) }

// graphOp is an Op as gorgonia's Op and SDOp interfaces see it.
type graphOp struct {
	def      Op
	name     string
	out      tensor.Shape
	dtype    tensor.Dtype // the input nodes' element type, which every run's values have
	inDims   []int        // each input's dimensions, for Type
	inSize   []int        // each input's element count, checked on every run
	scalarIn []bool       // inputs that are scalars (read through Scalar)
	last     G.Value
	args32   kernelArgs[float32]
	args64   kernelArgs[float64]
}

// kernelArgs is one element type's scratch for calling a kernel without
// allocating: the inputs' slices, the scalar inputs' values, and the output
// of a scalar op.
type kernelArgs[T Float] struct {
	in      [][]T
	scalars []T
	out     [1]T
}

func (o *graphOp) Arity() int { return len(o.inDims) }

func (o *graphOp) Type() hm.Type {
	ts := make([]hm.Type, 0, len(o.inDims)+1)
	for i, d := range o.inDims {
		ts = append(ts, valueType(d, o.scalarIn[i]))
	}
	return hm.NewFnType(append(ts, valueType(o.out.Dims(), o.out.IsScalar()))...)
}

// valueType is the type of a tensor of dims dimensions (or of a scalar) of
// the type variable a.
func valueType(dims int, scalar bool) hm.Type {
	if scalar {
		return scalarT
	}
	return TensorType(dims)
}

func (o *graphOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return o.out.Clone(), nil }
func (o *graphOp) ReturnsPtr() bool                               { return false }
func (o *graphOp) CallsExtern() bool                              { return false }
func (o *graphOp) OverwritesInput() int                           { return -1 }
func (o *graphOp) WriteHash(h hash.Hash)                          { fmt.Fprint(h, o.name) }
func (o *graphOp) Hashcode() uint32                               { h := fnv.New32a(); o.WriteHash(h); return h.Sum32() }
func (o *graphOp) String() string                                 { return o.name }

func (o *graphOp) DiffWRT(n int) []bool {
	if o.def.Grad == nil {
		return nil
	}
	if o.def.DiffWRT != nil {
		return o.def.DiffWRT
	}
	all := make([]bool, n)
	for i := range all {
		all[i] = true
	}
	return all
}

func (o *graphOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	if o.def.Grad == nil {
		return nil, fmt.Errorf("%s is not differentiated", o.name)
	}
	return o.def.Grad(in, grad)
}

// Do checks the inputs, runs Prepare and the kernel of their element type
// into the op's previous output where it can (see reusable), and keeps
// the output for the next run.
func (o *graphOp) Do(in ...G.Value) (G.Value, error) {
	dt, err := o.check(in)
	if err != nil {
		return nil, err
	}
	if o.def.Prepare != nil {
		if err := o.def.Prepare(); err != nil {
			return nil, fmt.Errorf("%s: %w", o.name, err)
		}
	}
	var v G.Value
	switch dt {
	case tensor.Float32:
		v, err = runKernel(o, &o.args32, o.def.F32, (*tensor.Dense).Float32s, in, dt)
	case tensor.Float64:
		v, err = runKernel(o, &o.args64, o.def.F64, (*tensor.Dense).Float64s, in, dt)
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, dt)
	}
	if err == nil {
		o.last = v
	}
	return v, err
}

// check wants one value per input, each a dense tensor of the size the
// node was built with (or a scalar where the input is one) and of the
// element type of the input nodes, which it returns.
func (o *graphOp) check(in []G.Value) (tensor.Dtype, error) {
	if len(in) != len(o.inDims) {
		return tensor.Dtype{}, fmt.Errorf("%s: got %d inputs, want %d", o.name, len(in), len(o.inDims))
	}
	seen := false
	for i, v := range in {
		if o.scalarIn[i] {
			continue // read by runKernel
		}
		d, err := AsDense(o.name, v)
		if err != nil {
			return tensor.Dtype{}, err
		}
		if d.Size() != o.inSize[i] {
			return tensor.Dtype{}, fmt.Errorf("%s: input %d has shape %v, want %d values", o.name, i, d.Shape(), o.inSize[i])
		}
		if d.Dtype() != o.dtype {
			return tensor.Dtype{}, fmt.Errorf("%s: input %d: dtypes %v and %v (its graph's)", o.name, i, d.Dtype(), o.dtype)
		}
		seen = true
	}
	if !seen {
		return tensor.Dtype{}, fmt.Errorf("%s: no tensor input", o.name)
	}
	return o.dtype, nil
}

// runKernel calls kernel k on the inputs' T slices (values reads a dense
// tensor's) and returns its output: a dense tensor, the op's previous one
// where reusable says so, or a scalar.
func runKernel[T Float](o *graphOp, a *kernelArgs[T], k Kernel[T], values func(*tensor.Dense) []T, in []G.Value, dt tensor.Dtype) (G.Value, error) {
	if len(a.scalars) != len(in) {
		a.scalars = make([]T, len(in))
	}
	a.in = a.in[:0]
	for i, v := range in {
		if o.scalarIn[i] {
			s, err := Scalar(o.name, v)
			if err != nil {
				return nil, err
			}
			a.scalars[i] = T(s)
			a.in = append(a.in, a.scalars[i:i+1])
			continue
		}
		a.in = append(a.in, values(v.(*tensor.Dense)))
	}
	if o.out.IsScalar() {
		a.out[0] = 0
		if err := k(a.out[:], a.in); err != nil {
			return nil, fmt.Errorf("%s: %w", o.name, err)
		}
		return newScalar(dt, float64(a.out[0])), nil
	}
	var out *tensor.Dense
	if o.def.Accumulates {
		out = outBuf(o.last, in, dt, o.out...)
	} else {
		out = outBufFull(o.last, in, dt, o.out...)
	}
	if err := k(values(out), a.in); err != nil {
		return nil, fmt.Errorf("%s: %w", o.name, err)
	}
	return out, nil
}
