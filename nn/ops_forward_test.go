package nn

import (
	"math"
	"math/rand"
	"testing"

	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// runForward evaluates f on float64 inputs and returns the output's data.
func runForward(t *testing.T, vals []*tensor.Dense, f func(in []*G.Node) (*G.Node, error)) G.Value {
	t.Helper()
	g := G.NewGraph()
	var in []*G.Node
	for i, v := range vals {
		in = append(in, G.NodeFromAny(g, v, G.WithName(string(rune('a'+i)))))
	}
	out, err := f(in)
	if err != nil {
		t.Fatal(err)
	}
	m := G.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	return out.Value()
}

func TestCrossEntropyValue(t *testing.T) {
	// Row 0: logits (0, ln 3) target 1 → −ln(3/4); row 1 padded; row 2:
	// large equal logits (stability) target 0 → ln 2.
	x := tensor.New(tensor.WithShape(3, 2), tensor.WithBacking([]float64{0, math.Log(3), 5, 7, 1000, 1000}))
	targets := []int32{1, -1, 0}
	v := runForward(t, []*tensor.Dense{x}, func(in []*G.Node) (*G.Node, error) { return CrossEntropy(in[0], &targets, Xent{}) })
	got, _ := graphop.Scalar("", v)
	want := (-math.Log(0.75) + math.Log(2)) / 2
	if math.Abs(got-want) > 1e-12 {
		t.Fatalf("loss %v, want %v (mean over the 2 real rows)", got, want)
	}
	// The same rows as a sum, and with label smoothing ε: row 0's smoothed
	// loss is (1−ε)(−ln ¾) + (ε/2)(−ln ¼ − ln ¾); row 2's stays ln 2 (its
	// two classes are equally likely). LastXent reads the plain NLL mean
	// whatever the reduction and the smoothing.
	const eps = 0.2
	smooth0 := (1-eps)*-math.Log(0.75) + eps/2*(-math.Log(0.25)-math.Log(0.75))
	for _, c := range []struct {
		name string
		opt  Xent
		want float64
	}{
		{"sum", Xent{Sum: true}, -math.Log(0.75) + math.Log(2)},
		{"mean, smoothed", Xent{Smoothing: eps}, (smooth0 + math.Log(2)) / 2},
		{"sum, smoothed", Xent{Sum: true, Smoothing: eps}, smooth0 + math.Log(2)},
	} {
		var node *G.Node
		v := runForward(t, []*tensor.Dense{x}, func(in []*G.Node) (*G.Node, error) {
			var err error
			node, err = CrossEntropy(in[0], &targets, c.opt)
			return node, err
		})
		if got, _ := graphop.Scalar("", v); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: loss %v, want %v", c.name, got, c.want)
		}
		if r, ok := LastXent(node); !ok || r.Real != 2 || math.Abs(r.NLL-want) > 1e-12 {
			t.Errorf("%s: LastXent %+v, want the NLL mean %v over 2 rows", c.name, r, want)
		}
	}
	g0 := G.NewGraph()
	if _, err := CrossEntropy(G.NodeFromAny(g0, x), &targets, Xent{Smoothing: 1}); err == nil {
		t.Error("label smoothing 1 accepted")
	}
	targets = []int32{1, 2, 0}
	g := G.NewGraph()
	_, err := CrossEntropy(G.NodeFromAny(g, x), &targets, Xent{})
	if err != nil {
		t.Fatal(err) // shape is fine; the bad target is caught when run
	}
}

func TestAttentionIsCausal(t *testing.T) {
	const b, seq, d = 2, 5, 6
	r := rand.New(rand.NewSource(3))
	mk := func() *tensor.Dense {
		x := tensor.New(tensor.WithShape(b*seq, 3*d), tensor.Of(tensor.Float64))
		for i, data := 0, x.Data().([]float64); i < len(data); i++ {
			data[i] = r.NormFloat64()
		}
		return x
	}
	x := mk()
	y := x.Clone().(*tensor.Dense)
	// change the last position of sequence 0 only
	for k := 0; k < 3*d; k++ {
		y.Data().([]float64)[(seq-1)*3*d+k] += 1
	}
	att := func(in []*G.Node) (*G.Node, error) { return CausalAttention(in[0], b, seq, 2) }
	ox := runForward(t, []*tensor.Dense{x}, att).Data().([]float64)
	oy := runForward(t, []*tensor.Dense{y}, att).Data().([]float64)
	for row := 0; row < b*seq; row++ {
		changed := false
		for k := 0; k < d; k++ {
			changed = changed || ox[row*d+k] != oy[row*d+k]
		}
		if want := row == seq-1; changed != want {
			t.Errorf("row %d changed=%v, want %v", row, changed, want)
		}
	}
	// position 0 attends only to itself: its output is its own value vector
	for k := 0; k < d; k++ {
		if v := x.Data().([]float64)[2*d+k]; math.Abs(ox[k]-v) > 1e-12 {
			t.Fatalf("position 0 output %v, want its value %v", ox[k], v)
		}
	}
}

func TestDropoutMasks(t *testing.T) {
	x := tensor.New(tensor.WithShape(100, 100), tensor.Of(tensor.Float64))
	for i, d := 0, x.Data().([]float64); i < len(d); i++ {
		d[i] = 1
	}
	run := func(seed int64, training bool) []float64 {
		return runForward(t, []*tensor.Dense{x}, func(in []*G.Node) (*G.Node, error) {
			y, op, err := Dropout(in[0], 0.25, NewStream(seed))
			if op != nil {
				op.SetTraining(training)
			}
			return y, err
		}).Data().([]float64)
	}
	a, b := run(5, true), run(5, true)
	zeros := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("same seed gave different masks")
		}
		switch a[i] {
		case 0:
			zeros++
		case 1 / 0.75:
		default:
			t.Fatalf("entry %v, want 0 or 1/(1-p)", a[i])
		}
	}
	if frac := float64(zeros) / float64(len(a)); math.Abs(frac-0.25) > 0.02 {
		t.Errorf("dropped %.3f, want ≈ 0.25", frac)
	}
	for _, v := range run(5, false) {
		if v != 1 {
			t.Fatal("eval-mode dropout is not the identity")
		}
	}
	if _, _, err := Dropout(G.NodeFromAny(G.NewGraph(), x), 1, nil); err == nil {
		t.Error("p = 1 accepted")
	}
}
