package norm

import (
	"github.com/normtop/normtop/normspec"
	"math"
	"math/rand"
	"strings"
	"testing"
)

// One test per edge case of docs/math.md §4.

func allFinite(t *testing.T, what string, v []float64) {
	t.Helper()
	for i, f := range v {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			t.Fatalf("%s[%d] = %v", what, i, f)
		}
	}
}

// Constant row (LN family): x̂ = 0; convention C uses the zero subgradient
// for s = 0, so dx = (g - ḡ)/ε there.
func TestEdgeConstantRow(t *testing.T) {
	const n, d = 3, 5
	r := rand.New(rand.NewSource(1))
	x := randSlice(r, n*d, 1, 0)
	for k := 0; k < d; k++ {
		x[d+k] = 0.1 // row 1 is constant, with a mean that rounds
	}
	g := randSlice(r, n*d, 1, 0)
	for _, spec := range []string{"layernorm", "layernorm-simple", "detachnorm", "detach-mean", "detach-variance", "adanorm", "layernorm:conv=c", "layernorm-simple:conv=c", "detach-mean:conv=c", "adanorm:conv=c"} {
		t.Run(spec, func(t *testing.T) {
			l := mustLayer(t, spec, Site{D: d, Dtype: f64})
			var bet []float64
			if l.gamma != nil {
				_, bet = randomParams(r, l)
			}
			y, dx, _, _ := refStep(t, l, x, g, n)
			allFinite(t, "y", y)
			allFinite(t, "dx", dx)
			gm, _ := moments(g[d : 2*d])
			D := math.Sqrt(l.cfg.Eps)
			if l.cfg.Conv == normspec.ConvC {
				D = l.cfg.Eps
			}
			for k := 0; k < d; k++ {
				want := 0.0
				if bet != nil {
					want = bet[k]
				}
				if y[d+k] != want {
					t.Errorf("y[1][%d] = %v, want %v (x̂ = 0)", k, y[d+k], want)
				}
				gk := g[d+k]
				if l.gamma != nil {
					gk *= float64(l.gamma.Data().([]float64)[k])
				}
				var wantDx float64
				switch l.cfg.Kind {
				case normspec.DetachNorm, normspec.DetachMean:
					wantDx = gk / D
				case normspec.AdaNorm:
					wantDx = (l.cfg.C*gk - l.cfg.C*gm) / D
				default:
					gbar := gm
					if l.gamma != nil {
						s := 0.0
						for j := 0; j < d; j++ {
							s += g[d+j] * l.gamma.Data().([]float64)[j]
						}
						gbar = s / d
					}
					wantDx = (gk - gbar) / D
				}
				if relErr(dx[d+k], wantDx) > 1e-12 {
					t.Errorf("dx[1][%d] = %v, want %v", k, dx[d+k], wantDx)
				}
			}
		})
	}
}

// Constant column (BatchNorm) and zero column (PN-V): x̂ = 0 there. PN-V's
// dx = ĝ/D as §4 says. For BatchNorm the spec's "dx = ĝ/D" omits the
// mean term g_μ = -S1/(n·D), which does not vanish for a constant column;
// the true gradient (checked by finite differences) is (ĝ - mean ĝ)/D.
func TestEdgeConstantColumn(t *testing.T) {
	const n, d = 6, 3
	r := rand.New(rand.NewSource(2))
	for _, c := range []struct {
		spec  string
		value float64
	}{{"batchnorm", 0.3}, {"batchnorm", 0}, {"pn-v", 0}} {
		t.Run(c.spec, func(t *testing.T) {
			l := mustLayer(t, c.spec, Site{D: d, Dtype: f64})
			gam, bet := randomParams(r, l)
			x := randSlice(r, n*d, 1, 0)
			for i := 0; i < n; i++ {
				x[i*d+1] = c.value
			}
			g := randSlice(r, n*d, 1, 0)
			y, dx, _, _ := refStep(t, l, x, g, n)
			allFinite(t, "y", y)
			allFinite(t, "dx", dx)
			D := math.Sqrt(l.cfg.Eps)
			mg := 0.0
			for i := 0; i < n; i++ {
				mg += gam[1] * g[i*d+1] / n
			}
			for i := 0; i < n; i++ {
				if y[i*d+1] != bet[1] {
					t.Errorf("row %d: y = %v, want β = %v", i, y[i*d+1], bet[1])
				}
				want := gam[1] * g[i*d+1] / D
				if l.cfg.Kind == normspec.BatchNorm {
					want -= mg / D
				}
				if relErr(dx[i*d+1], want) > 1e-12 {
					t.Errorf("row %d: dx = %v, want %v", i, dx[i*d+1], want)
				}
			}
		})
	}
}

// n = 1 (one real row): BatchNorm outputs β there, dx = 0, and the running
// variance is not updated (the mean is).
func TestEdgeOneRealRow(t *testing.T) {
	const n, d = 4, 3
	r := rand.New(rand.NewSource(3))
	l := mustLayer(t, "batchnorm", Site{D: d, Dtype: f64})
	_, bet := randomParams(r, l)
	l.SetMask([]bool{false, false, true, false})
	x := randSlice(r, n*d, 2, 1)
	g := randSlice(r, n*d, 1, 0)
	before := l.State()
	y, dx, _, _ := refStep(t, l, x, g, n)
	allFinite(t, "y", y)
	for k := 0; k < d; k++ {
		if y[2*d+k] != bet[k] {
			t.Errorf("y[real][%d] = %v, want β = %v", k, y[2*d+k], bet[k])
		}
	}
	for i, v := range dx {
		if v != 0 {
			t.Fatalf("dx[%d] = %v, want 0", i, v)
		}
	}
	after := l.State()
	assertClose(t, "running σ² (skipped)", after.Var, before.Var, 0)
	for k := 0; k < d; k++ {
		if want := 0.95*before.Mean[k] + 0.05*x[2*d+k]; relErr(after.Mean[k], want) > 1e-12 {
			t.Errorf("running μ[%d] = %v, want %v", k, after.Mean[k], want)
		}
	}
}

// n = 0 (all padding): no statistic update, normalisation with the running
// statistics, dx = 0, finite everything.
func TestEdgeAllPadding(t *testing.T) {
	const n, d = 3, 4
	for _, spec := range []string{"batchnorm", "pn-v", "powernorm:groups=2,warmup=10", "layernorm", "rmsnorm"} {
		t.Run(spec, func(t *testing.T) {
			r := rand.New(rand.NewSource(4))
			l := mustLayer(t, spec, Site{D: d, Dtype: f64})
			gam, bet := randomParams(r, l)
			st := l.State()
			for _, v := range [][]float64{st.Mean, st.Var, st.Psi2, st.Nu} {
				for k := range v {
					v[k] = 0.5 + r.Float64()
				}
			}
			if err := l.SetState(st); err != nil {
				t.Fatal(err)
			}
			l.SetMask(make([]bool, n))
			x := randSlice(r, n*d, 1, 0.5)
			g := randSlice(r, n*d, 1, 0)
			y, dx, dg, db := refStep(t, l, x, g, n)
			allFinite(t, "y", y)
			for i, v := range dx {
				if v != 0 {
					t.Fatalf("dx[%d] = %v, want 0", i, v)
				}
			}
			for k := range dg {
				if dg[k] != 0 || db[k] != 0 {
					t.Fatalf("dγ/dβ[%d] = %v/%v, want 0", k, dg[k], db[k])
				}
			}
			after := l.State()
			after.Step = st.Step
			assertClose(t, "state", append(append(append(after.Mean, after.Var...), after.Psi2...), after.Nu...),
				append(append(append(st.Mean, st.Var...), st.Psi2...), st.Nu...), 0)
			if l.cfg.Kind == normspec.BatchNorm || l.cfg.Kind == normspec.PNV || l.cfg.Kind == normspec.PowerNorm {
				xs := x
				if l.cfg.Kind == normspec.PowerNorm {
					xs = gsRef(t, x, n, d, 2, l.cfg.Eps)
				}
				for i := 0; i < n; i++ {
					for k := 0; k < d; k++ {
						var want float64
						if l.cfg.Kind == normspec.BatchNorm {
							want = gam[k]*(xs[i*d+k]-st.Mean[k])/math.Sqrt(st.Var[k]+l.cfg.Eps) + bet[k]
						} else {
							want = gam[k]*xs[i*d+k]/math.Sqrt(st.Psi2[k]+l.cfg.Eps) + bet[k]
						}
						if relErr(y[i*d+k], want) > 1e-12 {
							t.Errorf("y[%d][%d] = %v, want %v (running statistics)", i, k, y[i*d+k], want)
						}
					}
				}
			}
		})
	}
}

// d = 1 under convention C is an error at construction, not a NaN later.
func TestEdgeD1ConvC(t *testing.T) {
	for _, spec := range []string{"layernorm:conv=c", "layernorm-simple:conv=c", "detachnorm:conv=c", "detach-mean:conv=c", "detach-variance:conv=c", "adanorm:conv=c"} {
		cfg, err := normspec.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewLayer(cfg, Site{Name: "x", D: 1, Dtype: f64}); err == nil || !strings.Contains(err.Error(), "d ≥ 2") {
			t.Errorf("%s with d=1: err = %v", spec, err)
		}
	}
	// convention P with d = 1 is fine: x̂ = 0
	l := mustLayer(t, "layernorm-simple", Site{D: 1, Dtype: f64})
	y, dx, _, _ := refStep(t, l, []float64{3, -2}, []float64{1, 1}, 2)
	allFinite(t, "y", y)
	allFinite(t, "dx", dx)
}

// Γ > 2/(1-α_b) makes ν grow without bound: the layer reports Γ in the taps
// and does not clamp ν.
func TestEdgeNuGrowthAlert(t *testing.T) {
	const n, d = 8, 2
	r := rand.New(rand.NewSource(6))
	l := mustLayer(t, "powernorm:warmup=0,groups=1,alpha_bwd=0.9", Site{D: d, Dtype: f64})
	// a tiny running ψ² makes x̂ = x/√(ψ²+ε) large, so Γ = mean x̂² ≫ 20
	if err := l.SetState(State{Variant: "powernorm", Psi2: []float64{1e-3, 1e-3}, Nu: []float64{0.1, -0.1}}); err != nil {
		t.Fatal(err)
	}
	x := randSlice(r, n*d, 1, 0)
	g := randSlice(r, n*d, 1, 0)
	prev := norm2(l.State().Nu)
	limit := 2 / (1 - 0.9)
	for s := 0; s < 3; s++ {
		st := l.State()
		st.Psi2 = []float64{1e-3, 1e-3} // keep the forward divisor small
		if err := l.SetState(st); err != nil {
			t.Fatal(err)
		}
		refStep(t, l, x, g, n)
		tp := l.Taps()
		if !(tp.PNGamma > limit) {
			t.Fatalf("step %d: Γ tap = %v, want > %v", s, tp.PNGamma, limit)
		}
		if tp.NuNorm <= prev {
			t.Fatalf("step %d: ‖ν‖ = %v did not grow from %v", s, tp.NuNorm, prev)
		}
		if relErr(tp.NuNorm, norm2(l.State().Nu)) > 1e-15 {
			t.Fatalf("NuNorm tap %v ≠ ‖ν‖ %v", tp.NuNorm, norm2(l.State().Nu))
		}
		prev = tp.NuNorm
	}
}
