package nn

import (
	"math"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestReLUMatchesRectify: ReLU replaced gorgonia's Rectify in the models;
// its output and input gradient must be Rectify's bit for bit, signed zeros
// and NaN included, so that the swap changed no run.
func TestReLUMatchesRectify(t *testing.T) {
	xs := []float64{-2, -0.5, -0, 0, 0.25, 3, math.NaN(), math.Inf(1), math.Inf(-1), -1e-30, 1e-30, 7}
	ws := []float64{1, -2, 3, 0.5, -1, 2, 1, 1, 1, 4, -3, math.NaN()}
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		type result struct{ y, dx []float64 }
		run := func(act func(*G.Node) (*G.Node, error)) result {
			g := G.NewGraph()
			x := G.NewMatrix(g, dt, G.WithShape(3, 4), G.WithName("x"))
			w := G.NewMatrix(g, dt, G.WithShape(3, 4), G.WithName("w"))
			y, err := act(x)
			if err != nil {
				t.Fatal(err)
			}
			var yv G.Value
			G.Read(y, &yv)
			prod, err := G.HadamardProd(y, w)
			if err != nil {
				t.Fatal(err)
			}
			loss, err := G.Sum(prod)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := G.Grad(loss, x); err != nil {
				t.Fatal(err)
			}
			G.Let(x, denseOf(dt, xs, 3, 4))
			G.Let(w, denseOf(dt, ws, 3, 4))
			vm := G.NewTapeMachine(g)
			defer vm.Close()
			if err := vm.RunAll(); err != nil {
				t.Fatal(err)
			}
			dx, err := x.Grad()
			if err != nil {
				t.Fatal(err)
			}
			return result{floats(yv), floats(dx)}
		}
		want, got := run(G.Rectify), run(ReLU)
		for i := range xs {
			if math.Float64bits(got.y[i]) != math.Float64bits(want.y[i]) || math.Float64bits(got.dx[i]) != math.Float64bits(want.dx[i]) {
				t.Errorf("%v x=%v: ReLU y %v dx %v, Rectify y %v dx %v", dt, xs[i], got.y[i], got.dx[i], want.y[i], want.dx[i])
			}
		}
	}
}

func denseOf(dt tensor.Dtype, v []float64, shape ...int) *tensor.Dense {
	if dt == tensor.Float32 {
		f := make([]float32, len(v))
		for i, x := range v {
			f[i] = float32(x)
		}
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(f))
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float64(nil), v...)))
}

func floats(v G.Value) []float64 {
	switch d := v.Data().(type) {
	case []float64:
		return append([]float64(nil), d...)
	case []float32:
		out := make([]float64, len(d))
		for i, x := range d {
			out[i] = float64(x)
		}
		return out
	}
	return nil
}
