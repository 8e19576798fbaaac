package norm

import (
	"fmt"
	"hash"
	"hash/fnv"
	"unsafe"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// What the ops check and reuse: their gorgonia types and hashes, the
// shapes their inputs must have, the inputs' data as []T, and output
// buffers (ops.go).

func matType() gorgonia.TensorType { return gorgonia.TensorType{Dims: 2, Of: hm.TypeVariable('a')} }
func vecType() gorgonia.TensorType { return gorgonia.TensorType{Dims: 1, Of: hm.TypeVariable('a')} }

func opHash(h hash.Hash, s string) { h.Write([]byte(s)) }

func opHashcode(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// dims is the shape a value must have: [rows, cols], or [cols] when rows < 0.
type dims struct{ rows, cols int }

func (w dims) match(s tensor.Shape) bool {
	if w.rows < 0 {
		return len(s) == 1 && s[0] == w.cols
	}
	return len(s) == 2 && s[0] == w.rows && s[1] == w.cols
}

func (w dims) String() string {
	if w.rows < 0 {
		return fmt.Sprintf("(%d)", w.cols)
	}
	return fmt.Sprintf("(%d, %d)", w.rows, w.cols)
}

func (w dims) size() int { return max(w.rows, 1) * w.cols }

// dataOf is t's backing slice as []T, without the reflection (and the two
// allocations) of Dense.Data. ok is false when the dtype is not T's.
func dataOf[T float](t *tensor.Dense) (data []T, ok bool) {
	var z T
	if unsafe.Sizeof(z) == 4 {
		if t.Dtype() != tensor.Float32 {
			return nil, false
		}
		s := t.Float32s()
		return *(*[]T)(unsafe.Pointer(&s)), true
	}
	if t.Dtype() != tensor.Float64 {
		return nil, false
	}
	s := t.Float64s()
	return *(*[]T)(unsafe.Pointer(&s)), true
}

// denseIn checks one input value and returns its data as []T. Error
// messages are built only on failure: this runs on every step.
func denseIn[T float](v gorgonia.Value, l *Layer, what string, want dims) ([]T, error) {
	t, ok := v.(*tensor.Dense)
	if !ok || t == nil {
		return nil, fmt.Errorf("norm: %s: %s: want a dense tensor, got %T", l.label(), what, v)
	}
	if t.IsMaterializable() {
		t = t.Materialize().(*tensor.Dense)
	}
	if !want.match(t.Shape()) {
		return nil, fmt.Errorf("norm: %s: %s: shape %v, want %v", l.label(), what, t.Shape(), want)
	}
	data, ok := dataOf[T](t)
	if !ok {
		return nil, fmt.Errorf("norm: %s: %s: dtype %v, the layer's is %v", l.label(), what, t.Dtype(), l.site.Dtype)
	}
	if len(data) < want.size() {
		return nil, fmt.Errorf("norm: %s: %s: %d values for shape %v", l.label(), what, len(data), want)
	}
	return data[:want.size()], nil
}

// outBuf reuses prealloc when it is a dense tensor of the right dtype and
// shape that no input shares, and allocates otherwise.
func outBuf[T float](prealloc gorgonia.Value, want dims, inputs ...[]T) (*tensor.Dense, []T) {
	if t, ok := prealloc.(*tensor.Dense); ok && t != nil && !t.IsMaterializable() && want.match(t.Shape()) {
		if data, ok := dataOf[T](t); ok && len(data) == want.size() && !sharesAny(data, inputs) {
			return t, data
		}
	}
	data := make([]T, want.size())
	if want.rows < 0 {
		return tensor.New(tensor.WithShape(want.cols), tensor.WithBacking(data)), data
	}
	return tensor.New(tensor.WithShape(want.rows, want.cols), tensor.WithBacking(data)), data
}

func sharesAny[T float](a []T, others [][]T) bool {
	if len(a) == 0 {
		return false
	}
	for _, o := range others {
		if len(o) > 0 && &o[0] == &a[0] {
			return true
		}
	}
	return false
}
