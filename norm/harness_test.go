package norm

import (
	"github.com/normtop/normtop/normspec"
	"math"
	"math/rand"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// harness is a small gorgonia graph around one layer: L = Σ w ⊙ layer(x),
// with its gradients w.r.t. x, γ and β, run by a TapeMachine. The input and
// weights live in tensors the test rewrites between runs.
type harness struct {
	l      *Layer
	n      int
	g      *gorgonia.ExprGraph
	xT, wT *tensor.Dense
	y      *gorgonia.Node
	loss   *gorgonia.Node
	grads  gorgonia.Nodes // dx[, dγ, dβ]
	vm     gorgonia.VM
}

func newHarness(t testing.TB, l *Layer, n int, withGrad bool) *harness {
	t.Helper()
	h := &harness{l: l, n: n, g: gorgonia.NewGraph()}
	dt := l.site.Dtype
	h.xT = tensor.New(tensor.Of(dt), tensor.WithShape(n, l.d))
	h.wT = tensor.New(tensor.Of(dt), tensor.WithShape(n, l.d))
	x := gorgonia.NewMatrix(h.g, dt, gorgonia.WithShape(n, l.d), gorgonia.WithValue(h.xT), gorgonia.WithName("x"))
	w := gorgonia.NewMatrix(h.g, dt, gorgonia.WithShape(n, l.d), gorgonia.WithValue(h.wT), gorgonia.WithName("w"))
	y, params, err := l.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	h.y = y
	h.loss = gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.HadamardProd(w, y))))
	if withGrad {
		h.grads, err = gorgonia.Grad(h.loss, append(gorgonia.Nodes{x}, params...)...)
		if err != nil {
			t.Fatal(err)
		}
	}
	h.vm = gorgonia.NewTapeMachine(h.g)
	t.Cleanup(func() { h.vm.Close() })
	return h
}

func setData(t *tensor.Dense, v []float64) {
	switch d := t.Data().(type) {
	case []float64:
		copy(d, v)
	case []float32:
		for i := range d {
			d[i] = float32(v[i])
		}
	}
}

func valueF64(v gorgonia.Value) []float64 {
	return toF64(nil, v.Data())
}

// run sets x and w, runs the graph and returns y, L and the gradients
// (dx, dγ, dβ; the last two nil without γ/β).
func (h *harness) run(t testing.TB, x, w []float64) (y []float64, loss float64, dx, dg, db []float64) {
	t.Helper()
	setData(h.xT, x)
	setData(h.wT, w)
	h.vm.Reset()
	if err := h.vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	y = valueF64(h.y.Value())
	for i, v := range y {
		loss += v * w[i]
	}
	if len(h.grads) > 0 {
		dx = valueF64(h.grads[0].Value())
	}
	if len(h.grads) == 3 {
		dg = valueF64(h.grads[1].Value())
		db = valueF64(h.grads[2].Value())
	}
	return
}

func randSlice(r *rand.Rand, n int, scale, shift float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()*scale + shift
	}
	return v
}

// lossWeights are the random upstream gradients; padded rows get zero
// weight, the loss convention the trainer uses (mean over real tokens).
func lossWeights(r *rand.Rand, n, d int, mask []bool) []float64 {
	w := randSlice(r, n*d, 1, 0)
	for i := 0; i < n; i++ {
		if mask != nil && !mask[i] {
			for k := 0; k < d; k++ {
				w[i*d+k] = 0
			}
		}
	}
	return w
}

func relErr(a, b float64) float64 {
	den := math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-8)
	return math.Abs(a-b) / den
}

// maxRelErr compares two vectors relative to the larger of their norms
// per element (with an absolute floor so that zeros compare sanely).
func maxRelErr(a, b []float64) float64 {
	scale := 0.0
	for i := range a {
		scale = math.Max(scale, math.Max(math.Abs(a[i]), math.Abs(b[i])))
	}
	if scale == 0 {
		return 0
	}
	m := 0.0
	for i := range a {
		den := math.Max(math.Max(math.Abs(a[i]), math.Abs(b[i])), 1e-3*scale)
		m = math.Max(m, math.Abs(a[i]-b[i])/den)
	}
	return m
}

func mustLayer(t testing.TB, spec string, site Site) *Layer {
	t.Helper()
	cfg, err := normspec.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLayer(cfg, site)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
