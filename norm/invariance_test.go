package norm

import (
	"math/rand"
	"testing"
)

// LayerNorm's output does not change when the input is scaled by a > 0 and
// shifted by b. ε breaks the invariance at the 1e-5 level, so the check
// uses a negligible ε to test the kernel's algebra to rounding.
func TestLayerNormScaleShiftInvariance(t *testing.T) {
	const n, d = 6, 16
	r := rand.New(rand.NewSource(1))
	for _, spec := range []string{"layernorm:eps=1e-300", "layernorm:conv=c,eps=1e-300", "layernorm-simple:eps=1e-300"} {
		l := mustLayer(t, spec, Site{D: d, Dtype: f64})
		randomParams(r, l)
		x := randSlice(r, n*d, 1, 0)
		y0, _, _, _ := refStep(t, l, x, nil, n)
		for _, c := range []struct{ a, b float64 }{{3.5, 0}, {0.01, -7}, {250, 1e3}} {
			xt := make([]float64, len(x))
			for i, v := range x {
				xt[i] = c.a*v + c.b
			}
			y1, _, _, _ := refStep(t, l, xt, nil, n)
			assertClose(t, spec, y1, y0, 1e-9)
		}
	}
}

// BatchNorm's training-mode output does not change under a per-feature
// scale a_k > 0 and shift b_k.
func TestBatchNormPerFeatureInvariance(t *testing.T) {
	const n, d = 9, 5
	r := rand.New(rand.NewSource(2))
	l := mustLayer(t, "batchnorm:eps=1e-300", Site{D: d, Dtype: f64})
	randomParams(r, l)
	x := randSlice(r, n*d, 1, 0)
	y0, _, _, _ := refStep(t, l, x, nil, n)
	a := []float64{0.1, 3, 70, 1, 0.5}
	b := []float64{5, -2, 0, 1e3, -0.25}
	xt := make([]float64, len(x))
	for i := 0; i < n; i++ {
		for k := 0; k < d; k++ {
			xt[i*d+k] = a[k]*x[i*d+k] + b[k]
		}
	}
	y1, _, _, _ := refStep(t, l, xt, nil, n)
	assertClose(t, "batchnorm", y1, y0, 1e-9)
}
