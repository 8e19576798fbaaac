package norm

import (
	"github.com/normtop/normtop/normspec"
	"math"
	"math/rand"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestFloat32MatchesReference: the float32 ops agree with the float64
// reference kernels to 1e-5 relative, every variant, three training steps
// (so running state and warmup are exercised) with a mask.
func TestFloat32MatchesReference(t *testing.T) {
	const n, d = 12, 16
	mask := []bool{true, true, true, false, true, true, true, true, false, true, true, true}
	for _, v := range normspec.Variants() {
		spec := v.Name
		if spec == "powernorm" {
			spec = "powernorm:warmup=2,groups=4"
		}
		t.Run(spec, func(t *testing.T) {
			r := rand.New(rand.NewSource(8))
			l32 := mustLayer(t, spec, Site{Name: "a", D: d, Dtype: tensor.Float32, SampleRows: 4})
			l64 := mustLayer(t, spec, Site{Name: "a", D: d, Dtype: tensor.Float64, SampleRows: 4})
			if l32.gamma != nil {
				gam := roundF32(randSlice(r, d, 0.3, 1))
				bet := roundF32(randSlice(r, d, 0.3, 0))
				setData(l32.gamma, gam)
				setData(l32.beta, bet)
				setData(l64.gamma, gam)
				setData(l64.beta, bet)
			}
			l32.SetMask(mask)
			l64.SetMask(mask)
			h := newHarness(t, l32, n, true)
			for step := 0; step < 3; step++ {
				x := roundF32(randSlice(r, n*d, 1.5, 0.5))
				w := roundF32(lossWeights(r, n, d, mask))
				y, _, dx, dg, db := h.run(t, x, w)
				y64, dx64, dg64, db64 := refStep(t, l64, x, w, n)
				assertClose(t, "y", y, y64, 1e-5)
				assertClose(t, "dx", dx, dx64, 1e-5)
				if l32.gamma != nil {
					assertClose(t, "dγ", dg, dg64, 1e-5)
					assertClose(t, "dβ", db, db64, 1e-5)
				}
			}
			s32, s64 := l32.State(), l64.State()
			assertClose(t, "state", append(append(append(s32.Mean, s32.Var...), s32.Psi2...), s32.Nu...),
				append(append(append(s64.Mean, s64.Var...), s64.Psi2...), s64.Nu...), 1e-5)
		})
	}
}

func roundF32(v []float64) []float64 {
	for i := range v {
		v[i] = float64(float32(v[i]))
	}
	return v
}

// TestEvalGraphSharesWeightsNotState: Apply on a second, forward-only graph
// shares γ/β with the training graph; running it in inference mode uses the
// running statistics and leaves state and taps alone.
func TestEvalGraphSharesWeightsNotState(t *testing.T) {
	const n, d = 5, 4
	r := rand.New(rand.NewSource(3))
	l := mustLayer(t, "batchnorm", Site{Name: "bn", D: d, Dtype: tensor.Float64})
	train := newHarness(t, l, n, true)
	eval := newHarness(t, l, 3, false)
	x := randSlice(r, n*d, 1, 2)
	train.run(t, x, lossWeights(r, n, d, nil))
	st := l.State()
	taps := *l.Taps()
	gam, bet := randomParams(r, l) // the eval graph must see these
	l.SetTraining(false)
	xe := randSlice(r, 3*d, 1, 0)
	y, _, _, _, _ := eval.run(t, xe, make([]float64, 3*d))
	for i := 0; i < 3; i++ {
		for k := 0; k < d; k++ {
			want := gam[k]*(xe[i*d+k]-st.Mean[k])/math.Sqrt(st.Var[k]+1e-5) + bet[k]
			if relErr(y[i*d+k], want) > 1e-12 {
				t.Fatalf("eval y[%d][%d] = %v, want %v", i, k, y[i*d+k], want)
			}
		}
	}
	after := l.State()
	assertClose(t, "state after eval", append(after.Mean, after.Var...), append(st.Mean, st.Var...), 0)
	if after.Step != st.Step || l.Taps().Step != taps.Step {
		t.Fatal("eval run advanced the step counter")
	}
	l.SetTraining(true)
	train.run(t, x, lossWeights(r, n, d, nil))
	if l.State().Step != st.Step+1 {
		t.Fatal("training run after eval did not advance the step")
	}
}

// TestMaskLengthMismatchIsAnError: a mask whose length is not N makes the
// graph run fail with an error naming the problem, without a panic or a
// state change.
func TestMaskLengthMismatchIsAnError(t *testing.T) {
	l := mustLayer(t, "powernorm", Site{Name: "pn", D: 4, Heads: 2, Dtype: tensor.Float32})
	h := newHarness(t, l, 3, true)
	l.SetMask([]bool{true, false})
	st := l.State()
	setData(h.xT, make([]float64, 12))
	err := h.vm.RunAll()
	if err == nil || !strings.Contains(err.Error(), "mask has 2 rows but the input has 3") {
		t.Fatalf("err = %v", err)
	}
	if l.State().Step != st.Step {
		t.Fatal("failed step changed the state")
	}
	l.SetMask(nil)
	h.vm.Reset()
	if err := h.vm.RunAll(); err != nil {
		t.Fatal(err)
	}
}

func TestApplyErrors(t *testing.T) {
	l := mustLayer(t, "layernorm", Site{Name: "ln", D: 4, Dtype: tensor.Float32})
	g := gorgonia.NewGraph()
	for name, x := range map[string]*gorgonia.Node{
		"wrong width": gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(3, 5), gorgonia.WithName("a")),
		"vector":      gorgonia.NewVector(g, tensor.Float32, gorgonia.WithShape(4), gorgonia.WithName("b")),
		"dtype":       gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(3, 4), gorgonia.WithName("c")),
		"nil":         nil,
	} {
		if _, _, err := l.Apply(x); err == nil {
			t.Errorf("%s: Apply accepted it", name)
		}
	}
}

// layerOps are one Apply's ops on an [n, D] input, as its graph holds
// them: the forward, the backward, and for variants with γ/β the reads of
// dγ and dβ.
type layerOps struct{ fw, bw, rg, rb gorgonia.Op }

func applyOps(t testing.TB, l *Layer, n int) layerOps {
	t.Helper()
	g := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(g, l.site.Dtype, gorgonia.WithShape(n, l.d), gorgonia.WithName("x"))
	y, params, err := l.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	up := gorgonia.NewMatrix(g, l.site.Dtype, gorgonia.WithShape(n, l.d), gorgonia.WithName("g"))
	grads, err := y.Op().(gorgonia.SDOp).SymDiff(append(gorgonia.Nodes{x}, params...), y, up)
	if err != nil {
		t.Fatal(err)
	}
	ops := layerOps{fw: y.Op(), bw: grads[0].Op()}
	if len(grads) == 3 {
		ops.rg, ops.rb = grads[1].Op(), grads[2].Op()
	}
	return ops
}

// TestOpsUniquePerApply: two layers of the same variant, and two Apply
// calls of one layer, give ops with distinct names and hashes, so gorgonia
// never merges their stateful nodes.
func TestOpsUniquePerApply(t *testing.T) {
	a := mustLayer(t, "layernorm", Site{Name: "x", D: 4, Dtype: tensor.Float64})
	b := mustLayer(t, "layernorm", Site{Name: "x", D: 4, Dtype: tensor.Float64})
	names, hashes := map[string]bool{}, map[uint32]bool{}
	for _, l := range []*Layer{a, b, a} {
		ops := applyOps(t, l, 3)
		for _, op := range []gorgonia.Op{ops.fw, ops.bw, ops.rg, ops.rb} {
			if s, h := op.String(), op.Hashcode(); names[s] || hashes[h] {
				t.Fatalf("op %q (hash %d) repeated", s, h)
			}
			names[op.String()], hashes[op.Hashcode()] = true, true
		}
	}
}

// TestOpInputs: the ops refuse values of another dtype than the layer's
// (with and without γ/β), and keep their output from one run to the next
// without writing into an input.
func TestOpInputs(t *testing.T) {
	x := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{1, 2, 3, 4, 5, 6}))
	x32 := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking(make([]float32, 6)))
	for _, spec := range []string{"rmsnorm", "layernorm-simple"} {
		l := mustLayer(t, spec, Site{D: 3, Dtype: tensor.Float64})
		ops := applyOps(t, l, 2)
		in := []gorgonia.Value{x}
		in32 := []gorgonia.Value{x32}
		if l.gamma != nil {
			in = append(in, l.gamma, l.beta)
			in32 = append(in32, l.gamma, l.beta)
		}
		if _, err := ops.fw.Do(in32...); err == nil {
			t.Errorf("%s: accepted a float32 input on a float64 layer", spec)
		}
		first, err := ops.fw.Do(in...)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ops.fw.Do(in...)
		if err != nil {
			t.Fatal(err)
		}
		if first != again || first == gorgonia.Value(x) || !again.Shape().Eq(tensor.Shape{2, 3}) {
			t.Errorf("%s: outputs %p then %p of shape %v, input %p: want one buffer of its own, [2, 3]", spec, first, again, again.Shape(), x)
		}
	}
}

// TestGradOnlyParams: a graph that asks only for γ/β gradients (x is data)
// still runs the backward op and gives the same dγ/dβ as the full graph.
func TestGradOnlyParams(t *testing.T) {
	const n, d = 4, 6
	r := rand.New(rand.NewSource(9))
	for _, spec := range []string{"layernorm", "powernorm:groups=2", "batchnorm"} {
		l := mustLayer(t, spec, Site{Name: "p", D: d, Dtype: tensor.Float64})
		randomParams(r, l)
		full := newHarness(t, l, n, true)
		x := randSlice(r, n*d, 1, 0)
		w := randSlice(r, n*d, 1, 0)
		st := l.State()
		_, _, _, dg, db := full.run(t, x, w)

		g := gorgonia.NewGraph()
		xn := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(n, d), gorgonia.WithValue(tensor.New(tensor.WithShape(n, d), tensor.WithBacking(append([]float64(nil), x...)))), gorgonia.WithName("x"))
		wn := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(n, d), gorgonia.WithValue(tensor.New(tensor.WithShape(n, d), tensor.WithBacking(w))), gorgonia.WithName("w"))
		y, params, err := l.Apply(xn)
		if err != nil {
			t.Fatal(err)
		}
		loss := gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.HadamardProd(wn, y))))
		grads, err := gorgonia.Grad(loss, params...)
		if err != nil {
			t.Fatal(err)
		}
		vm := gorgonia.NewTapeMachine(g)
		if err := l.SetState(st); err != nil {
			t.Fatal(err)
		}
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		vm.Close()
		assertClose(t, spec+" dγ", valueF64(grads[0].Value()), dg, 1e-12)
		assertClose(t, spec+" dβ", valueF64(grads[1].Value()), db, 1e-12)
	}
}

// TestNoAllocationsPerStep: after the first step, a training step of the
// op pair (forward + backward + dγ/dβ reads, each op reusing its previous
// output) does not allocate, with every tap group on and a mask.
func TestNoAllocationsPerStep(t *testing.T) {
	const n, d = 8, 16
	for _, v := range normspec.Variants() {
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			l := mustLayer(t, v.Name, Site{Name: "a", D: d, Heads: 4, Dtype: dt, SampleRows: 4})
			l.SetMask([]bool{true, true, false, true, true, true, true, false})
			ops := applyOps(t, l, n)
			mk := func() *tensor.Dense { return tensor.New(tensor.Of(dt), tensor.WithShape(n, d)) }
			x, g := mk(), mk()
			setData(x, randSlice(rand.New(rand.NewSource(1)), n*d, 1, 0))
			setData(g, randSlice(rand.New(rand.NewSource(2)), n*d, 1, 0))
			fin := []gorgonia.Value{x}
			bin := []gorgonia.Value{x, g}
			if l.gamma != nil {
				fin = []gorgonia.Value{x, l.gamma, l.beta}
				bin = []gorgonia.Value{x, l.gamma, g}
			}
			rin := make([]gorgonia.Value, 1) // the reads' input, dx (a slice of its own: Do(dx) would allocate one)
			step := func() {
				if _, err := ops.fw.Do(fin...); err != nil {
					t.Fatal(err)
				}
				dx, err := ops.bw.Do(bin...)
				if err != nil {
					t.Fatal(err)
				}
				if l.gamma != nil {
					rin[0] = dx
					if _, err := ops.rg.Do(rin...); err != nil {
						t.Fatal(err)
					}
					if _, err := ops.rb.Do(rin...); err != nil {
						t.Fatal(err)
					}
				}
			}
			step()
			if a := testing.AllocsPerRun(5, step); a != 0 {
				t.Errorf("%s/%v: %v allocations per step", v.Name, dt, a)
			}
		}
	}
}
