package nn

import (
	"fmt"
	"hash"
	"hash/fnv"
	"sync/atomic"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// opSeq makes every op instance unique: gorgonia deduplicates nodes by op
// hash and children, which would merge two dropout sites (or two embedding
// lookups with different index buffers) applied to the same input.
var opSeq atomic.Int64

// OpBase carries the boilerplate of gorgonia's Op interface. Ops are
// identified by name plus a process-unique sequence number.
type OpBase struct {
	name string
	last G.Value // the previous output, reused as the next one's buffer
}

// NewOpBase names an op instance kind#n, n unique in the process.
func NewOpBase(kind string) OpBase {
	return OpBase{name: fmt.Sprintf("%s#%d", kind, opSeq.Add(1))}
}

func (o OpBase) ReturnsPtr() bool      { return false }
func (o OpBase) CallsExtern() bool     { return false }
func (o OpBase) OverwritesInput() int  { return -1 }
func (o OpBase) WriteHash(h hash.Hash) { fmt.Fprint(h, o.name) }
func (o OpBase) String() string        { return o.name }
func (o OpBase) Hashcode() uint32      { h := fnv.New32a(); o.WriteHash(h); return h.Sum32() }

// CheckArity is an error naming the op unless it got want inputs.
func (o OpBase) CheckArity(n, want int) error {
	if n != want {
		return fmt.Errorf("%s: got %d inputs, want %d", o.name, n, want)
	}
	return nil
}

// TensorType is the type of a dims-dimensional tensor of the type variable a.
func TensorType(dims int) hm.Type { return G.TensorType{Dims: dims, Of: hm.TypeVariable('a')} }

var scalarT hm.Type = hm.TypeVariable('a')

// AsDense returns v as a *tensor.Dense or an error naming the op.
func AsDense(op string, v G.Value) (*tensor.Dense, error) {
	d, ok := v.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("%s: input %T is not a dense tensor", op, v)
	}
	return d, nil
}

// twoDense checks an op's two inputs are dense tensors of one dtype.
func twoDense(name string, in []G.Value) (*tensor.Dense, *tensor.Dense, error) {
	if len(in) != 2 {
		return nil, nil, fmt.Errorf("%s: got %d inputs, want 2", name, len(in))
	}
	a, err := AsDense(name, in[0])
	if err != nil {
		return nil, nil, err
	}
	b, err := AsDense(name, in[1])
	if err != nil {
		return nil, nil, err
	}
	if a.Dtype() != b.Dtype() {
		return nil, nil, fmt.Errorf("%s: dtypes %v and %v", name, a.Dtype(), b.Dtype())
	}
	return a, b, nil
}

// Scalar reads a scalar gorgonia value as float64.
func Scalar(op string, v G.Value) (float64, error) {
	switch s := v.(type) {
	case *G.F64:
		return float64(*s), nil
	case *G.F32:
		return float64(*s), nil
	case *tensor.Dense:
		if s.Size() == 1 {
			switch d := s.Data().(type) {
			case []float64:
				return d[0], nil
			case []float32:
				return float64(d[0]), nil
			case float64:
				return d, nil
			case float32:
				return float64(d), nil
			}
		}
	}
	return 0, fmt.Errorf("%s: %T is not a float scalar", op, v)
}

// newScalar makes a gorgonia scalar of dtype dt.
func newScalar(dt tensor.Dtype, v float64) G.Value {
	if dt == tensor.Float32 {
		return G.NewF32(float32(v))
	}
	return G.NewF64(v)
}

// newLike allocates a zeroed dense tensor of dtype dt and the given shape.
func NewDense(dt tensor.Dtype, shape ...int) *tensor.Dense {
	return tensor.New(tensor.WithShape(shape...), tensor.Of(dt))
}

// Float is the element type of every tensor the trainer touches.
type Float interface{ ~float32 | ~float64 }

// Reuse runs do with the op's previous output as the buffer for the new
// one. The op keeps it itself, whichever engine runs the graph (the
// executor, or gorgonia's TapeMachine in tests, which drops every value
// on Reset); an op's output is only read during the run that made it (and
// by the trainer right after it), so the next run may overwrite it.
func (o *OpBase) Reuse(do func(pre G.Value, in []G.Value) (G.Value, error), in []G.Value) (G.Value, error) {
	v, err := do(o.last, in)
	if err == nil {
		o.last = v
	}
	return v, err
}

// outBuf returns a zeroed output tensor of dtype dt and the given shape:
// pre (the op's previous output) when it is a dense tensor of exactly that
// dtype and shape that shares no memory with the inputs; a new tensor
// otherwise.
func outBuf(pre G.Value, in []G.Value, dt tensor.Dtype, shape ...int) *tensor.Dense {
	p := reusable(pre, in, dt, shape)
	if p == nil {
		return NewDense(dt, shape...)
	}
	p.Zero()
	return p
}

// OutBufFull is outBuf for an op that writes every element of its output
// (bias add, attention): pre comes back as it is, not zeroed, which saves
// a pass over the output (4% of the word model's step, on its logits).
func OutBufFull(pre G.Value, in []G.Value, dt tensor.Dtype, shape ...int) *tensor.Dense {
	if p := reusable(pre, in, dt, shape); p != nil {
		return p
	}
	return NewDense(dt, shape...)
}

// reusable returns pre when it is a dense tensor of exactly dtype dt and
// the given shape that shares no memory with the inputs, else nil.
func reusable(pre G.Value, in []G.Value, dt tensor.Dtype, shape []int) *tensor.Dense {
	p, ok := pre.(*tensor.Dense)
	if !ok || p.Dtype() != dt || !p.Shape().Eq(tensor.Shape(shape)) || p.IsView() {
		return nil
	}
	for _, v := range in {
		if d, ok := v.(*tensor.Dense); ok && d.Uintptr() == p.Uintptr() {
			return nil
		}
	}
	return p
}
