package nn

import (
	"math"
	"testing"

	"gorgonia.org/tensor"
)

// dense wraps float slices as tensors (sharing their memory), as Adam and
// GradNorm take them.
func dense(xs ...any) []*tensor.Dense {
	var out []*tensor.Dense
	for _, x := range xs {
		out = append(out, tensor.New(tensor.WithBacking(x)))
	}
	return out
}

func TestLearningRate(t *testing.T) {
	cases := []struct {
		lr           float64
		warmup, step int
		want         float64
	}{
		{1e-3, 0, 1, 1e-3},
		{1e-3, 0, 5000, 1e-3},
		{1, 4, 1, 0.25},
		{1, 4, 2, 0.5},
		{1, 4, 4, 1},
		{1, 4, 16, 0.5},
		{1, 4, 64, 0.25},
	}
	for _, c := range cases {
		if got := LearningRate(c.lr, c.warmup, c.step); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("LearningRate(%g, %d, %d) = %g, want %g", c.lr, c.warmup, c.step, got, c.want)
		}
	}
}

func TestAdamFirstStepAndConvergence(t *testing.T) {
	// The first bias-corrected step moves every weight by lr·sign(g).
	p := []float64{1, -2, 3}
	a := NewAdam([]int{3})
	a.Step(dense(p), dense([]float64{0.5, -7, 1e-3}), 0.1, 1)
	want := []float64{0.9, -1.9, 2.9}
	for i := range p {
		if math.Abs(p[i]-want[i]) > 1e-6 {
			t.Fatalf("after one step p = %v, want %v", p, want)
		}
	}
	// Minimising Σ (p_i − i)² in float32 reaches the minimum.
	q := []float32{5, 5, 5}
	a = NewAdam([]int{3})
	for s := 1; s <= 2000; s++ {
		g := make([]float32, 3)
		for i := range q {
			g[i] = 2 * (q[i] - float32(i))
		}
		a.Step(dense(q), dense(g), LearningRate(0.1, 10, s), 1)
	}
	for i, v := range q {
		if math.Abs(float64(v)-float64(i)) > 1e-2 {
			t.Fatalf("Adam ended at %v, want [0 1 2]", q)
		}
	}
}

func TestClip(t *testing.T) {
	n, ok := GradNorm(dense([]float32{3}, []float64{4}))
	if n != 5 || !ok {
		t.Fatalf("GradNorm = %v %v, want 5 true", n, ok)
	}
	if s := ClipScale(n, 1); s != 0.2 {
		t.Errorf("ClipScale(5, 1) = %v", s)
	}
	if s := ClipScale(n, 0); s != 1 {
		t.Errorf("clip off: %v", s)
	}
	if _, ok := GradNorm(dense([]float64{1, math.Inf(1)})); ok {
		t.Error("Inf gradient reported finite")
	}
}

// TestAdamWeightDecay: WeightDecay shrinks each parameter by lr·decay
// before the Adam step, decoupled from the gradient: with a zero gradient
// the moments stay zero and the step is the shrink alone, in float32 as in
// float64.
func TestAdamWeightDecay(t *testing.T) {
	for _, c := range []struct {
		name      string
		lr, decay float64
	}{{"fairseq's", 1e-3, 1e-4}, {"large", 0.1, 0.5}, {"off", 1e-3, 0}} {
		t.Run(c.name, func(t *testing.T) {
			p32, g32 := []float32{1, -2, 0.5}, []float32{0, 0, 0}
			p64, g64 := []float64{1, -2, 0.5}, []float64{0, 0, 0}
			a32, a64 := NewAdam([]int{3}), NewAdam([]int{3})
			a32.WeightDecay, a64.WeightDecay = c.decay, c.decay
			a32.Step(dense(p32), dense(g32), c.lr, 1)
			a64.Step(dense(p64), dense(g64), c.lr, 1)
			for i, x := range []float64{1, -2, 0.5} {
				want := x - c.lr*c.decay*x
				if d := math.Abs(p64[i] - want); d > 1e-15 {
					t.Errorf("float64 p[%d] = %v, want %v", i, p64[i], want)
				}
				if d := math.Abs(float64(p32[i]) - want); d > 1e-7*math.Abs(x) {
					t.Errorf("float32 p[%d] = %v, want %v", i, p32[i], want)
				}
			}
		})
	}
}
