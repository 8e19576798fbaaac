package nn

import (
	"fmt"
	"hash"
	"hash/fnv"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// OpBase is the plumbing of an op written out by hand against gorgonia's
// Op interface, as every op was before Op: the convolution family (conv,
// conv on rows, pooling, the ResNet shortcut), whose kernels are being
// reworked, still is. Ops are identified by name plus a process-unique
// sequence number, as Op's are.
type OpBase struct {
	name string
	last G.Value // the previous output, reused as the next one's buffer
}

// NewOpBase names an op instance kind#n, n unique in the process.
func NewOpBase(kind string) OpBase { return OpBase{name: instanceName(kind)} }

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

// Reuse runs do with the op's previous output as the buffer for the new
// one (see reusable for when it may be).
func (o *OpBase) Reuse(do func(pre G.Value, in []G.Value) (G.Value, error), in []G.Value) (G.Value, error) {
	v, err := do(o.last, in)
	if err == nil {
		o.last = v
	}
	return v, err
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
