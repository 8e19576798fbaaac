package nntest

import (
	"math"
	"math/rand"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// GradCheck builds f on float64 inputs of the given shapes (filled with
// values from fill), reduces the output to a scalar (a random weighting of
// its entries unless it is one already), and compares gorgonia's symbolic
// gradient of every input with central finite differences.
func GradCheck(t *testing.T, shapes [][]int, fill func(i int, r *rand.Rand) float64,
	f func(g *G.ExprGraph, in []*G.Node) (*G.Node, error)) {
	t.Helper()
	r := rand.New(rand.NewSource(1))
	g := G.NewGraph()
	var in []*G.Node
	for i, s := range shapes {
		v := tensor.New(tensor.WithShape(s...), tensor.Of(tensor.Float64))
		for k, d := 0, v.Data().([]float64); k < len(d); k++ {
			d[k] = fill(i, r)
		}
		in = append(in, G.NodeFromAny(g, v, G.WithName(string(rune('a'+i)))))
	}
	out, err := f(g, in)
	if err != nil {
		t.Fatal(err)
	}
	loss := out
	if !out.IsScalar() {
		w := tensor.New(tensor.WithShape(out.Shape()...), tensor.Of(tensor.Float64))
		for k, d := 0, w.Data().([]float64); k < len(d); k++ {
			d[k] = r.NormFloat64()
		}
		prod, err := G.HadamardProd(out, G.NodeFromAny(g, w, G.WithName("weights")))
		if err != nil {
			t.Fatal(err)
		}
		if loss, err = G.Sum(prod); err != nil {
			t.Fatal(err)
		}
	}
	grads, err := G.Grad(loss, in...)
	if err != nil {
		t.Fatal(err)
	}
	m := G.NewTapeMachine(g)
	defer m.Close()
	run := func() float64 {
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
		defer m.Reset()
		return lossOf(t, loss.Value())
	}
	run()
	var analytic [][]float64
	for _, gn := range grads {
		analytic = append(analytic, append([]float64(nil), gn.Value().Data().([]float64)...))
	}
	const h = 1e-6
	for i, n := range in {
		x := n.Value().Data().([]float64)
		num := make([]float64, len(x))
		for k := range x {
			num[k] = Central(x, k, h, run)
		}
		var diff, norm float64
		for k := range num {
			diff += (analytic[i][k] - num[k]) * (analytic[i][k] - num[k])
			norm = math.Max(norm, math.Max(math.Abs(num[k]), math.Abs(analytic[i][k])))
		}
		rel := math.Sqrt(diff/float64(len(num))) / math.Max(norm, 1e-12)
		if rel > 1e-6 || math.IsNaN(rel) {
			t.Errorf("input %d %v: relative error %.3g (analytic %.6g, numeric %.6g)", i, shapes[i], rel, analytic[i][:min(4, len(num))], num[:min(4, len(num))])
		}
	}
}

// Normal fills every input with standard normal values.
func Normal(_ int, r *rand.Rand) float64 { return r.NormFloat64() }

// lossOf reads the float64 graph's scalar loss (GradCheck reduces every
// output to one).
func lossOf(t *testing.T, v G.Value) float64 {
	t.Helper()
	switch s := v.(type) {
	case *G.F64:
		return float64(*s)
	case *tensor.Dense:
		if d, ok := s.Data().([]float64); ok && len(d) == 1 {
			return d[0]
		}
		if d, ok := s.Data().(float64); ok {
			return d
		}
	}
	t.Fatalf("loss %T is not a float64 scalar", v)
	return 0
}

// Central is the central difference (f(x+h·e_k) − f(x−h·e_k)) / 2h of f,
// a function of x's current values, at element k; x[k] is restored.
func Central(x []float64, k int, h float64, f func() float64) float64 {
	orig := x[k]
	x[k] = orig + h
	up := f()
	x[k] = orig - h
	down := f()
	x[k] = orig
	return (up - down) / (2 * h)
}
