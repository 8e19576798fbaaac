package graphop

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Float is the element type of every tensor the trainer touches.
type Float interface{ ~float32 | ~float64 }

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

// NewDense allocates a zeroed dense tensor of dtype dt and the given shape.
func NewDense(dt tensor.Dtype, shape ...int) *tensor.Dense {
	return tensor.New(tensor.WithShape(shape...), tensor.Of(dt))
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

// outBufFull is outBuf for an op that writes every element of its output
// (bias add, attention): pre comes back as it is, not zeroed, which saves
// a pass over the output (4% of the word model's step, on its logits).
func outBufFull(pre G.Value, in []G.Value, dt tensor.Dtype, shape ...int) *tensor.Dense {
	if p := reusable(pre, in, dt, shape); p != nil {
		return p
	}
	return NewDense(dt, shape...)
}

// reusable returns pre when it is a dense tensor of exactly dtype dt and
// the given shape that shares no memory with the inputs, else nil. The op
// keeps its output itself, whichever engine runs the graph (nn's
// Executor, or gorgonia's TapeMachine in tests, which drops every value on
// Reset); an op's output is only read during the run that made it (and by
// the trainer right after it), so the next run may overwrite it.
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
