package norm

import (
	"math"
	"math/rand"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestLearnsAffine: gradient descent on γ and β through the graph, with
// the optimiser updating the layer's γ/β tensors in place, fits
// y = 1.5·x̂ + 0.3 for every variant with γ/β (x̂ stays fixed: the same
// batch every step, PowerNorm held in warmup).
func TestLearnsAffine(t *testing.T) {
	const n, d = 16, 8
	for _, spec := range []string{"layernorm", "rmsnorm", "batchnorm", "pn-v", "powernorm:warmup=1000,groups=2"} {
		t.Run(spec, func(t *testing.T) {
			r := rand.New(rand.NewSource(1))
			l := mustLayer(t, spec, Site{Name: "fit", D: d, Dtype: tensor.Float64})
			g := gorgonia.NewGraph()
			x := randSlice(r, n*d, 1.3, 0.4)
			xn := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(n, d), gorgonia.WithValue(tensor.New(tensor.WithShape(n, d), tensor.WithBacking(x))), gorgonia.WithName("x"))
			y, params, err := l.Apply(xn)
			if err != nil {
				t.Fatal(err)
			}
			x0, _, _, _ := refStep(t, mustLayer(t, spec, Site{D: d, Dtype: tensor.Float64}), x, nil, n)
			target := make([]float64, n*d)
			for i, v := range x0 {
				target[i] = 1.5*v + 0.3
			}
			tn := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(n, d), gorgonia.WithValue(tensor.New(tensor.WithShape(n, d), tensor.WithBacking(target))), gorgonia.WithName("t"))
			diff := gorgonia.Must(gorgonia.Sub(y, tn))
			loss := gorgonia.Must(gorgonia.Mean(gorgonia.Must(gorgonia.Square(diff))))
			grads, err := gorgonia.Grad(loss, params...)
			if err != nil {
				t.Fatal(err)
			}
			vm := gorgonia.NewTapeMachine(g)
			defer vm.Close()
			first := math.NaN()
			var last float64
			for step := 0; step < 300; step++ {
				vm.Reset()
				if err := vm.RunAll(); err != nil {
					t.Fatal(err)
				}
				last = loss.Value().Data().(float64)
				if step == 0 {
					first = last
				}
				gam, bet := l.gamma.Float64s(), l.beta.Float64s()
				dg, db := grads[0].Value().(*tensor.Dense).Float64s(), grads[1].Value().(*tensor.Dense).Float64s()
				for k := range gam {
					gam[k] -= 2 * dg[k]
					bet[k] -= 2 * db[k]
				}
			}
			if !(last < 1e-6*first) {
				t.Fatalf("loss %v → %v, did not fit", first, last)
			}
			for k := 0; k < d; k++ {
				if math.Abs(l.gamma.Float64s()[k]-1.5) > 1e-3 || math.Abs(l.beta.Float64s()[k]-0.3) > 1e-3 {
					t.Fatalf("γ/β = %v / %v, want 1.5 / 0.3", l.gamma.Float64s(), l.beta.Float64s())
				}
			}
		})
	}
}
