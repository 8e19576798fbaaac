package graphop

import (
	"errors"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestOpAdapter: what the adapter answers for every op. It refuses inputs
// of the wrong size or of two dtypes and a kernel's error, each with the
// op's instance name; an op without Grad says it is not differentiated;
// two nodes of one kind on the same input stay two nodes (gorgonia merges
// nodes of equal hash); a scalar output comes back as a gorgonia scalar.
func TestOpAdapter(t *testing.T) {
	double := func(out []float64, in [][]float64) error {
		for i, v := range in[0] {
			out[i] = 2 * v
		}
		return nil
	}
	sum := func(out []float64, in [][]float64) error {
		for _, v := range in[0] {
			out[0] += v
		}
		return nil
	}
	fail := func([]float64, [][]float64) error { return errors.New("kernel says no") }
	f32 := func([]float32, [][]float32) error { return nil }
	vec := func(xs ...float64) *tensor.Dense { return tensor.New(tensor.WithBacking(xs)) }
	cases := []struct {
		name    string
		op      Op
		in      []G.Value
		want    []float64 // the output's values, when no error
		wantErr string
	}{
		{"runs the kernel", Op{Kind: "Double", Out: tensor.Shape{3}, F32: f32, F64: double}, []G.Value{vec(1, 2, 3)}, []float64{2, 4, 6}, ""},
		{"scalar output", Op{Kind: "Sum", Out: tensor.ScalarShape(), F32: f32, F64: sum}, []G.Value{vec(1, 2, 3)}, []float64{6}, ""},
		{"wrong size", Op{Kind: "Double", Out: tensor.Shape{3}, F32: f32, F64: double}, []G.Value{vec(1, 2)}, nil, "Double#"},
		{"wrong arity", Op{Kind: "Double", Out: tensor.Shape{3}, F32: f32, F64: double}, []G.Value{vec(1, 2, 3), vec(1, 2, 3)}, nil, "got 2 inputs, want 1"},
		{"kernel error", Op{Kind: "Fail", Out: tensor.Shape{3}, F32: f32, F64: fail}, []G.Value{vec(1, 2, 3)}, nil, "kernel says no"},
		{"prepare error", Op{Kind: "Prep", Out: tensor.Shape{3}, F32: f32, F64: double, Prepare: func() error { return errors.New("bad state") }},
			[]G.Value{vec(1, 2, 3)}, nil, "bad state"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := G.NewGraph()
			x := G.NewVector(g, G.Float64, G.WithShape(3))
			n, err := c.op.Apply(x)
			if err != nil {
				t.Fatal(err)
			}
			v, err := n.Op().Do(c.in...)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), c.op.Kind+"#") {
					t.Fatalf("error %v, want one naming the op and saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []float64{}
			switch v := v.(type) {
			case *tensor.Dense:
				got = v.Float64s()
			case *G.F64:
				got = []float64{float64(*v)}
			default:
				t.Fatalf("output %T", v)
			}
			if len(got) != len(c.want) {
				t.Fatalf("output %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("output %v, want %v", got, c.want)
				}
			}
		})
	}

	t.Run("two dtypes", func(t *testing.T) {
		g := G.NewGraph()
		a, b := G.NewVector(g, G.Float64, G.WithShape(2)), G.NewVector(g, G.Float64, G.WithShape(2))
		n, err := Op{Kind: "Pair", Out: tensor.Shape{2}, F32: f32, F64: double}.Apply(a, b)
		if err != nil {
			t.Fatal(err)
		}
		_, err = n.Op().Do(vec(1, 2), tensor.New(tensor.WithBacking([]float32{1, 2})))
		if err == nil || !strings.Contains(err.Error(), "dtypes") {
			t.Fatalf("error %v, want one about the dtypes", err)
		}
	})
	t.Run("the dtype of its graph", func(t *testing.T) {
		g := G.NewGraph()
		x := G.NewVector(g, G.Float64, G.WithShape(2))
		n, err := Op{Kind: "Double", Out: tensor.Shape{2}, F32: f32, F64: double}.Apply(x)
		if err != nil {
			t.Fatal(err)
		}
		_, err = n.Op().Do(tensor.New(tensor.WithBacking([]float32{1, 2})))
		if err == nil || !strings.Contains(err.Error(), "its graph's") {
			t.Fatalf("error %v, want one about the graph's dtype", err)
		}
	})
	t.Run("described", func(t *testing.T) {
		g := G.NewGraph()
		x := G.NewVector(g, G.Float64, G.WithShape(3))
		state := new(int)
		n, err := Op{Kind: "Double", Out: tensor.Shape{3}, F32: f32, F64: double, State: state}.Apply(x)
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := Of(n); !ok || d.Kind != "Double" || d.State != state {
			t.Errorf("Of = %+v, %v; want the Double op and its state", d, ok)
		}
		if _, ok := Of(x); ok {
			t.Error("Of an input node: ok")
		}
	})
	t.Run("not differentiated", func(t *testing.T) {
		g := G.NewGraph()
		x := G.NewVector(g, G.Float64, G.WithShape(3))
		n, err := Op{Kind: "Double", Out: tensor.Shape{3}, F32: f32, F64: double}.Apply(x)
		if err != nil {
			t.Fatal(err)
		}
		sd := n.Op().(G.SDOp)
		if d := sd.DiffWRT(1); d != nil {
			t.Errorf("DiffWRT = %v, want none", d)
		}
		if _, err := sd.SymDiff(G.Nodes{x}, n, n); err == nil {
			t.Error("SymDiff of an op without Grad: no error")
		}
	})
	t.Run("instances stay apart", func(t *testing.T) {
		g := G.NewGraph()
		x := G.NewVector(g, G.Float64, G.WithShape(3))
		d := Op{Kind: "Double", Out: tensor.Shape{3}, F32: f32, F64: double}
		n1, err1 := d.Apply(x)
		n2, err2 := d.Apply(x)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if n1 == n2 || n1.Op().Hashcode() == n2.Op().Hashcode() {
			t.Error("two applications of one op on one input were merged")
		}
	})
}
