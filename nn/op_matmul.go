package nn

import (
	"fmt"

	"github.com/normtop/normtop/internal/graphop"
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
	p := product{tA: tA, tB: tB, dataA: dataA, m: m, n: n}
	d := graphop.Op{Kind: "MatMul", Out: tensor.Shape{m, n}, F32: mulKernel[float32](p, as, bs), F64: mulKernel[float64](p, as, bs)}
	if !tA {
		d.Grad, d.DiffWRT = p.grad, []bool{!dataA, true}
	}
	return d.Apply(a, b)
}

// product is op(a)·op(b) of an [m, n] result.
type product struct {
	tA, tB bool
	dataA  bool // a is training data: no gradient is built for it
	m, n   int
}

// mulKernel is the product of a of shape as and b of shape bs (beta = 0:
// it overwrites every element of the output, whatever was there).
func mulKernel[T Float](p product, as, bs tensor.Shape) graphop.Kernel[T] {
	ar, ac, br, bc := as[0], as[1], bs[0], bs[1]
	return func(c []T, ab [][]T) error {
		Mul(p.tA, p.tB, 1, Mat[T]{ab[0], ar, ac, ac}, Mat[T]{ab[1], br, bc, bc}, 0, Mat[T]{c, p.m, p.n, p.n})
		return nil
	}
}

// grad of C = A·B: dA = dC·Bᵀ, dB = Aᵀ·dC; of C = A·Bᵀ: dA = dC·B,
// dB = dCᵀ·A. A product with a transposed first operand has none.
func (p product) grad(in G.Nodes, grad *G.Node) (G.Nodes, error) {
	if p.tB {
		da, err := matMul(grad, in[1], false, false, false)
		if err != nil {
			return nil, err
		}
		db, err := matMul(grad, in[0], true, false, false)
		if err != nil {
			return nil, err
		}
		return G.Nodes{da, db}, nil
	}
	db, err := matMul(in[0], grad, true, false, false)
	if err != nil {
		return nil, err
	}
	if p.dataA {
		return G.Nodes{nil, db}, nil
	}
	da, err := matMul(grad, in[1], false, true, false)
	if err != nil {
		return nil, err
	}
	return G.Nodes{da, db}, nil
}
