package nn

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestMatMulForward holds every operand layout of the op, in float32 and
// float64, to a float64 triple loop, on odd shapes.
func TestMatMulForward(t *testing.T) {
	for _, s := range [][3]int{{1, 1, 1}, {7, 13, 5}, {5, 1, 9}, {33, 17, 70}, {64, 64, 16}} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
				m, k, n := s[0], s[1], s[2]
				name := fmt.Sprintf("%dx%dx%d/tA=%v,tB=%v/%v", m, k, n, tr[0], tr[1], dt)
				t.Run(name, func(t *testing.T) { checkMatMul(t, m, k, n, tr[0], tr[1], dt) })
			}
		}
	}
}

func checkMatMul(t *testing.T, m, k, n int, tA, tB bool, dt tensor.Dtype) {
	r := rand.New(rand.NewSource(int64(m*100 + k*10 + n)))
	shape := func(rows, cols int, tr bool) []int {
		if tr {
			return []int{cols, rows}
		}
		return []int{rows, cols}
	}
	fill := func(sh []int) (*tensor.Dense, []float64) {
		v := make([]float64, sh[0]*sh[1])
		for i := range v {
			v[i] = r.NormFloat64()
			if dt == tensor.Float32 {
				v[i] = float64(float32(v[i]))
			}
		}
		d := graphop.NewDense(dt, sh...)
		for i, x := range v {
			d.Set(i, castTo(dt, x))
		}
		return d, v
	}
	as, bs := shape(m, k, tA), shape(k, n, tB)
	a, av := fill(as)
	b, bv := fill(bs)
	g := G.NewGraph()
	an, bn := G.NodeFromAny(g, a, G.WithName("a")), G.NodeFromAny(g, b, G.WithName("b"))
	c, err := matMul(an, bn, tA, tB, false)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewExecutor(g)
	if err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 2; run++ { // the second run writes into the first's output
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		out := e.Value(c).(*tensor.Dense)
		if got := out.Shape(); !got.Eq(tensor.Shape{m, n}) {
			t.Fatalf("shape %v, want [%d %d]", got, m, n)
		}
		at := func(v []float64, sh []int, i, j int, tr bool) float64 {
			if tr {
				return v[j*sh[1]+i]
			}
			return v[i*sh[1]+j]
		}
		tol := map[tensor.Dtype]float64{tensor.Float32: 1e-5, tensor.Float64: 1e-13}[dt]
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var want, size float64
				for p := 0; p < k; p++ {
					x := at(av, as, i, p, tA) * at(bv, bs, p, j, tB)
					want += x
					size += math.Abs(x)
				}
				got := toFloat64(out.Get(i*n + j))
				if math.Abs(got-want) > tol*(size+1) {
					t.Fatalf("run %d: C[%d,%d] = %v, want %v", run, i, j, got, want)
				}
			}
		}
	}
}

func castTo(dt tensor.Dtype, x float64) any {
	if dt == tensor.Float32 {
		return float32(x)
	}
	return x
}

func toFloat64(v any) float64 {
	if f, ok := v.(float32); ok {
		return float64(f)
	}
	return v.(float64)
}

// TestMatMulDataOperand: a product whose left operand is data gets no
// gradient product for it (gorgonia's Mul built one that nothing read,
// the mlp's largest backward product), and the weight's gradient is the
// same as with the data treated as trainable.
func TestMatMulDataOperand(t *testing.T) {
	grad := func(data bool) (products int, dw []float64) {
		g := G.NewGraph()
		x := G.NodeFromAny(g, tensor.New(tensor.WithShape(3, 4), tensor.WithBacking([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})), G.WithName("x"))
		w := G.NodeFromAny(g, tensor.New(tensor.WithShape(4, 2), tensor.WithBacking([]float64{1, -1, 2, 0, 0.5, 3, -2, 1})), G.WithName("w"))
		y, err := MatMul(x, w, data)
		if err != nil {
			t.Fatal(err)
		}
		loss, err := G.Sum(y)
		if err != nil {
			t.Fatal(err)
		}
		gs, err := G.Grad(loss, w)
		if err != nil {
			t.Fatal(err)
		}
		e, err := NewExecutor(g)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		for _, n := range g.AllNodes() {
			if d, ok := graphop.Of(n); ok && d.Kind == "MatMul" {
				products++
			}
		}
		return products, e.Value(gs[0]).(*tensor.Dense).Float64s()
	}
	nData, dwData := grad(true)
	nTrain, dwTrain := grad(false)
	if nData != 2 || nTrain != 3 {
		t.Errorf("products: %d with a data operand, %d without; want 2 and 3", nData, nTrain)
	}
	if fmt.Sprint(dwData) != fmt.Sprint(dwTrain) {
		t.Errorf("dW %v with a data operand, %v without", dwData, dwTrain)
	}
}
