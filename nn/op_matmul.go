package nn

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// MatMul returns op(a)·op(b) for matrices, through package gemm (mat.go's
// mul). It replaces gorgonia's Mul in the linear layers: gorgonia's matrix
// product transposes its operands' access patterns in place for the
// backward products and allocates shape and stride slices on each call (300
// allocations per transformer step, most of what the executor left), and
// it builds the gradient of a data input (the mlp's images) that nothing
// reads: aIsData says a is training data, whose gradient is not built.
// A product with a transposed first operand is not differentiable: the
// backward pass needs only first derivatives.
func MatMul(a, b *G.Node, aIsData bool) (*G.Node, error) {
	return matMul(a, b, false, false, aIsData)
}

// MatMulT returns a·bᵀ, differentiable in both: the tied output layer,
// logits = h·Eᵀ over the [V, d] token embedding E.
func MatMulT(a, b *G.Node) (*G.Node, error) {
	return matMul(a, b, false, true, false)
}

func matMul(a, b *G.Node, tA, tB, dataA bool) (*G.Node, error) {
	as, bs := a.Shape(), b.Shape()
	if as.Dims() != 2 || bs.Dims() != 2 {
		return nil, fmt.Errorf("MatMul: %v × %v: both must be matrices", as, bs)
	}
	m, k := as[0], as[1]
	if tA {
		m, k = k, m
	}
	k2, n := bs[0], bs[1]
	if tB {
		k2, n = n, k2
	}
	if k != k2 {
		return nil, fmt.Errorf("MatMul: %v × %v (transposed %v, %v): inner sizes %d and %d differ", as, bs, tA, tB, k, k2)
	}
	op := &matMulOp{OpBase: NewOpBase("MatMul"), tA: tA, tB: tB, dataA: dataA, m: m, n: n}
	return G.ApplyOp(op, a, b)
}

type matMulOp struct {
	OpBase
	tA, tB bool
	dataA  bool // a is training data: no gradient is built for it
	m, n   int  // the product's shape
}

func (o *matMulOp) Arity() int    { return 2 }
func (o *matMulOp) Type() hm.Type { return hm.NewFnType(TensorType(2), TensorType(2), TensorType(2)) }
func (o *matMulOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.m, o.n}, nil
}
func (o *matMulOp) Do(in ...G.Value) (G.Value, error) { return o.Reuse(o.do, in) }

func (o *matMulOp) do(pre G.Value, in []G.Value) (G.Value, error) {
	a, b, err := twoDense(o.name, in)
	if err != nil {
		return nil, err
	}
	// beta = 0: the product overwrites every element, whatever was there
	out := OutBufFull(pre, in, a.Dtype(), o.m, o.n)
	switch a.Dtype() {
	case tensor.Float32:
		mulDense(o, a.Float32s(), b.Float32s(), out.Float32s(), a.Shape(), b.Shape())
	case tensor.Float64:
		mulDense(o, a.Float64s(), b.Float64s(), out.Float64s(), a.Shape(), b.Shape())
	default:
		return nil, fmt.Errorf("%s: dtype %v", o.name, a.Dtype())
	}
	return out, nil
}

func mulDense[T Float](o *matMulOp, a, b, c []T, as, bs tensor.Shape) {
	Mul(o.tA, o.tB, 1,
		Mat[T]{a, as[0], as[1], as[1]}, Mat[T]{b, bs[0], bs[1], bs[1]},
		0, Mat[T]{c, o.m, o.n, o.n})
}

func (o *matMulOp) DiffWRT(int) []bool { return []bool{!o.dataA, true} }

// SymDiff of C = A·B: dA = dC·Bᵀ, dB = Aᵀ·dC; of C = A·Bᵀ: dA = dC·B,
// dB = dCᵀ·A.
func (o *matMulOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if o.tA {
		return nil, fmt.Errorf("%s: a product with a transposed first operand is not differentiated", o.name)
	}
	if o.tB {
		da, err := matMul(grad, inputs[1], false, false, false)
		if err != nil {
			return nil, err
		}
		db, err := matMul(grad, inputs[0], true, false, false)
		if err != nil {
			return nil, err
		}
		return G.Nodes{da, db}, nil
	}
	db, err := matMul(inputs[0], grad, true, false, false)
	if err != nil {
		return nil, err
	}
	if o.dataA {
		return G.Nodes{nil, db}, nil
	}
	da, err := matMul(grad, inputs[1], false, true, false)
	if err != nil {
		return nil, err
	}
	return G.Nodes{da, db}, nil
}
