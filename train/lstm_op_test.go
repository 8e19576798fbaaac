package train

import (
	"math"
	"math/rand"
	"testing"

	"github.com/normtop/normtop/nn/nntest"
	"github.com/normtop/normtop/norm"
	"github.com/normtop/normtop/normspec"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// lstmVariants are the per-row variants the LSTM trains with, both
// conventions of the LayerNorm family among them.
var lstmVariants = []string{"none", "layernorm", "layernorm:conv=c", "layernorm-simple", "detachnorm",
	"detach-mean", "detach-variance", "adanorm", "rmsnorm"}

// lstmLayers builds the x, h and c layers of one LSTM layer (float64).
func lstmLayers(t *testing.T, spec string, h int) (lx *norm.Layer, nh, nc *norm.Seq) {
	t.Helper()
	cfg, err := normspec.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string, d int) *norm.Layer {
		l, err := norm.NewLayer(cfg, norm.Site{Name: name, D: d, Heads: 1, Dtype: tensor.Float64})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	lx = mk("lstm0.x", 4*h)
	var err2 error
	if nh, err2 = mk("lstm0.h", 4*h).NewSeq(); err2 != nil {
		t.Fatal(err2)
	}
	if nc, err2 = mk("lstm0.c", h).NewSeq(); err2 != nil {
		t.Fatal(err2)
	}
	return lx, nh, nc
}

// lstmExactVariants are the variants whose backward is the derivative of
// their forward. detachnorm, detach-mean, detach-variance and adanorm
// deliberately drop terms (μ, D, φ detached), so finite differences of the
// LSTM's loss do not give their gradients; norm's TestGradFDFrozenDetached
// checks their row backward (the kernel norm.BackwardRows runs), and the
// LSTM's plumbing around it is the same code for every variant.
var lstmExactVariants = []string{"none", "layernorm", "layernorm:conv=c", "layernorm-simple", "rmsnorm"}

// TestLSTMGradCheck: the LSTM cell with each norm at its three sites,
// through 3 time steps, against central finite differences in float64
// (docs/math.md §7: 1e-6): the input (through N_x), W_h, b and the γ, β of N_h
// and N_c; with and without a padding step.
func TestLSTMGradCheck(t *testing.T) {
	const B, T, H = 2, 3, 3
	for _, spec := range lstmExactVariants {
		for _, padded := range []bool{false, true} {
			name := spec
			if padded {
				name += "/padded"
			}
			t.Run(name, func(t *testing.T) {
				lx, nh, nc := lstmLayers(t, spec, H)
				var real *[]bool
				if padded {
					m := []bool{true, true, true, true, true, false} // sample 1's last step is padding
					lx.SetMask(m)
					real = &m
				}
				affine := nh.Layer().Config().Kind.HasAffine()
				shapes := [][]int{{B * T, 4 * H}, {H, 4 * H}, {4 * H}}
				if affine {
					shapes = append(shapes, []int{4 * H}, []int{4 * H}, []int{H}, []int{H})
				}
				fill := func(i int, r *rand.Rand) float64 {
					if i == 3 || i == 5 { // γ around 1
						return 1 + 0.3*r.NormFloat64()
					}
					return r.NormFloat64()
				}
				nntest.GradCheck(t, shapes, fill, func(g *G.ExprGraph, in []*G.Node) (*G.Node, error) {
					xn, _, err := lx.Apply(in[0])
					if err != nil {
						return nil, err
					}
					if !affine {
						return LSTMSeq(xn, in[1], in[2], nh, nc, nil, nil, nil, nil, B, T, real)
					}
					return LSTMSeq(xn, in[1], in[2], nh, nc, in[3], in[4], in[5], in[6], B, T, real)
				})
			})
		}
	}
}

// lstmRun runs LSTMSeq forward and backward once on float64 values (γ = 1
// + noise, β noise when the variant has them) and returns the output, the
// gradient of a fixed weighting of the output rows marked in keep, and
// every input's gradient.
func lstmRun(t *testing.T, spec string, B, T, H int, xn []float64, mask []bool, keep []bool) (out []float64, grads [][]float64) {
	t.Helper()
	_, nh, nc := lstmLayers(t, spec, H)
	r := rand.New(rand.NewSource(3))
	g := G.NewGraph()
	vec := func(name string, n int, base float64, shape ...int) *G.Node {
		d := make([]float64, n)
		for k := range d {
			d[k] = base + 0.5*r.NormFloat64()
		}
		return G.NodeFromAny(g, tensor.New(tensor.WithShape(shape...), tensor.WithBacking(d)), G.WithName(name))
	}
	x := G.NodeFromAny(g, tensor.New(tensor.WithShape(B*T, 4*H), tensor.WithBacking(append([]float64(nil), xn...))), G.WithName("xn"))
	in := []*G.Node{x, vec("wh", H*4*H, 0, H, 4*H), vec("b", 4*H, 0, 4*H)}
	var h *G.Node
	var err error
	real := &mask
	if nh.Layer().Config().Kind.HasAffine() {
		in = append(in, vec("gh", 4*H, 1, 4*H), vec("bh", 4*H, 0, 4*H), vec("gc", H, 1, H), vec("bc", H, 0, H))
		h, err = LSTMSeq(in[0], in[1], in[2], nh, nc, in[3], in[4], in[5], in[6], B, T, real)
	} else {
		h, err = LSTMSeq(in[0], in[1], in[2], nh, nc, nil, nil, nil, nil, B, T, real)
	}
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, B*T*H)
	for i := range w {
		if keep[i/H] {
			w[i] = math.Sin(float64(i))
		}
	}
	prod, err := G.HadamardProd(h, G.NodeFromAny(g, tensor.New(tensor.WithShape(B*T, H), tensor.WithBacking(w)), G.WithName("w")))
	if err != nil {
		t.Fatal(err)
	}
	loss, err := G.Sum(prod)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := G.Grad(loss, in...)
	if err != nil {
		t.Fatal(err)
	}
	m := G.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	out = append(out, h.Value().Data().([]float64)...)
	for _, gn := range gs {
		grads = append(grads, append([]float64(nil), gn.Value().Data().([]float64)...))
	}
	return out, grads
}

// TestLSTMPaddingSteps: a padding step leaves h and c as they were (its
// output row is the carried h), and what stands in it changes no real
// output and no gradient; its own input gets a zero gradient.
func TestLSTMPaddingSteps(t *testing.T) {
	const B, T, H = 2, 4, 3
	mask := []bool{true, true, true, true, true, true, false, false} // sample 1: 2 real steps
	for _, spec := range []string{"none", "layernorm", "rmsnorm", "adanorm"} {
		t.Run(spec, func(t *testing.T) {
			r := rand.New(rand.NewSource(9))
			xn := make([]float64, B*T*4*H)
			for i := range xn {
				xn[i] = r.NormFloat64()
			}
			out0, g0 := lstmRun(t, spec, B, T, H, xn, mask, mask)
			for i := range xn {
				if !mask[i/(4*H)] {
					xn[i] = 100 * r.NormFloat64()
				}
			}
			out1, g1 := lstmRun(t, spec, B, T, H, xn, mask, mask)
			for i := range out0 {
				if mask[i/H] && out0[i] != out1[i] {
					t.Fatalf("real output %d: %v vs %v: the padding leaks", i, out0[i], out1[i])
				}
			}
			for row := 6; row < 8; row++ { // carried h: the output of sample 1's last real step
				for k := 0; k < H; k++ {
					if out1[row*H+k] != out1[5*H+k] {
						t.Fatalf("padding row %d: h %v, want the carried %v", row, out1[row*H:row*H+H], out1[5*H:6*H])
					}
				}
			}
			for i := range g0 {
				for k := range g0[i] {
					if g0[i][k] != g1[i][k] {
						t.Fatalf("gradient of input %d [%d]: %v vs %v", i, k, g0[i][k], g1[i][k])
					}
					if i == 0 && !mask[k/(4*H)] && g0[i][k] != 0 {
						t.Fatalf("padding row %d of xn has gradient %v", k/(4*H), g0[i][k])
					}
				}
			}
		})
	}
}

// TestHNormsHandWorked: h_norm and h_norm_cv on a hand-made output.
// H = 1 so ‖h_t‖/√H = |h_t|. Sample 0: |h| = 1, 3 → mean 2, cv 1/2.
// Sample 1: 2, then padding → counts in h_norm, too short for a cv.
// h_norm = (1+3+2)/3 = 2; h_norm_cv = 0.5 (the one sample with two steps).
func TestHNormsHandWorked(t *testing.T) {
	st := &lstmState[float64]{mask: []bool{true, true, true, false}, hn: make([]float64, 2)} // time-major
	out := []float64{1, -3, 2, 7}                                                            // batch-major
	m, cv := hNorms(st, out, 2, 2, 1)
	if m != 2 || cv != 0.5 {
		t.Fatalf("h_norm %v, h_norm_cv %v; want 2 and 0.5", m, cv)
	}
	st.mask = []bool{false, false, false, false}
	if m, cv := hNorms(st, out, 2, 2, 1); !math.IsNaN(m) || !math.IsNaN(cv) {
		t.Fatalf("all padding: %v %v, want NaN NaN", m, cv)
	}
}

// BenchmarkLSTMActivations compares, in one run, the gate activations of
// a batch of 1,024 rows × 4·64 as math.Exp/math.Tanh per element (the
// first version) and as sigmoidRow/tanhRow (the exp kernel).
func BenchmarkLSTMActivations(b *testing.B) {
	const rows, h = 1024, 64
	x := make([]float32, rows*4*h)
	r := rand.New(rand.NewSource(1))
	for i := range x {
		x[i] = float32(2 * r.NormFloat64())
	}
	buf := make([]float32, len(x))
	b.Run("math", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for k, v := range x {
				if k%(4*h) < 3*h {
					buf[k] = float32(1 / (1 + math.Exp(-float64(v))))
				} else {
					buf[k] = float32(math.Tanh(float64(v)))
				}
			}
		}
	})
	b.Run("rows", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			copy(buf, x)
			for row := 0; row < rows; row++ {
				a := buf[row*4*h : (row+1)*4*h]
				sigmoidRow(a[:3*h])
				tanhRow(a[3*h:])
			}
		}
	})
}

// TestActivationRows: sigmoidRow and tanhRow against math in float64 and
// float32 (the exp kernel: 1e-6 relative, docs/math.md §7's float32 bound
// loosened by the two extra roundings), saturation exact.
func TestActivationRows(t *testing.T) {
	xs := []float64{-1e4, -30, -3, -0.5, -1e-3, 0, 1e-3, 0.5, 3, 30, 1e4}
	s64, t64 := append([]float64(nil), xs...), append([]float64(nil), xs...)
	sigmoidRow(s64)
	tanhRow(t64)
	s32, t32 := make([]float32, len(xs)), make([]float32, len(xs))
	for i, x := range xs {
		s32[i], t32[i] = float32(x), float32(x)
	}
	sigmoidRow(s32)
	tanhRow(t32)
	for i, x := range xs {
		ws, wt := 1/(1+math.Exp(-x)), math.Tanh(x)
		if math.Abs(s64[i]-ws) > 1e-15 || math.Abs(t64[i]-wt) > 1e-15 {
			t.Errorf("float64 at %g: σ %v tanh %v, want %v %v", x, s64[i], t64[i], ws, wt)
		}
		if math.Abs(float64(s32[i])-ws) > 1e-6 || math.Abs(float64(t32[i])-wt) > 1e-6 {
			t.Errorf("float32 at %g: σ %v tanh %v, want %v %v", x, s32[i], t32[i], ws, wt)
		}
	}
}
