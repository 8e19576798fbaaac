package norm

import (
	"fmt"
	"github.com/normtop/normtop/normspec"
	"math"
	"math/rand"
	"testing"

	"gorgonia.org/tensor"
)

// Finite-difference gradient checks (float64, central differences, relative
// error ≤ 1e-6, docs/math.md §7) of the gorgonia ops inside a small graph.

const fdStep = 1e-5
const fdTol = 1e-6

type lossFn func(x, gam, bet []float64) float64

// fdCompare checks the analytic gradients (dx, dγ, dβ) against central
// differences of loss.
func fdCompare(t *testing.T, loss lossFn, x, gam, bet, dx, dg, db []float64) {
	t.Helper()
	num := func(v []float64, f func() float64) []float64 {
		out := make([]float64, len(v))
		for j := range v {
			old := v[j]
			v[j] = old + fdStep
			lp := f()
			v[j] = old - fdStep
			lm := f()
			v[j] = old
			out[j] = (lp - lm) / (2 * fdStep)
		}
		return out
	}
	call := func() float64 { return loss(x, gam, bet) }
	if e := maxRelErr(dx, num(x, call)); e > fdTol {
		t.Errorf("dx: relative error %.3g > %g\n analytic %v\n numeric  %v", e, fdTol, dx, num(x, call))
	}
	if gam != nil {
		if e := maxRelErr(dg, num(gam, call)); e > fdTol {
			t.Errorf("dγ: relative error %.3g > %g", e, fdTol)
		}
		if e := maxRelErr(db, num(bet, call)); e > fdTol {
			t.Errorf("dβ: relative error %.3g > %g", e, fdTol)
		}
	}
}

// graphLoss evaluates L through the graph with the layer's state restored
// before every evaluation, so that each one sees the same step.
func graphLoss(t *testing.T, h *harness, st State, w []float64) lossFn {
	return func(x, gam, bet []float64) float64 {
		if err := h.l.SetState(st); err != nil {
			t.Fatal(err)
		}
		if gam != nil {
			setData(h.l.gamma, gam)
			setData(h.l.beta, bet)
		}
		_, loss, _, _, _ := h.run(t, x, w)
		return loss
	}
}

func randomParams(r *rand.Rand, l *Layer) (gam, bet []float64) {
	if l.gamma == nil {
		return nil, nil
	}
	gam = randSlice(r, l.d, 0.3, 1)
	bet = randSlice(r, l.d, 0.3, 0)
	setData(l.gamma, gam)
	setData(l.beta, bet)
	return gam, bet
}

var fdMasks = map[string][]bool{
	"nomask": nil,
	"mask":   {true, false, true, true, false, true, true},
}

// TestGradFDExact: every variant whose backward is the true gradient of its
// forward, in training mode (and inference mode for the stateful ones),
// both conventions for the LayerNorm family, with and without a mask.
func TestGradFDExact(t *testing.T) {
	specs := []struct {
		spec  string
		train bool
	}{
		{"none", true},
		{"layernorm", true}, {"layernorm:conv=c", true},
		{"layernorm-simple", true}, {"layernorm-simple:conv=c", true},
		{"rmsnorm", true},
		{"batchnorm", true}, {"batchnorm:groups=3", true}, {"batchnorm", false},
		{"batchnorm:groups=1", true},
		{"pn-v", true}, {"pn-v", false}, {"pn-v:groups=1", true}, {"pn-v:groups=3", true}, {"pn-v:groups=2", false},
		{"powernorm:groups=2", false},
	}
	const n, d = 7, 6
	for _, s := range specs {
		for mname, mask := range fdMasks {
			mode := "train"
			if !s.train {
				mode = "eval"
			}
			t.Run(fmt.Sprintf("%s/%s/%s", s.spec, mode, mname), func(t *testing.T) {
				r := rand.New(rand.NewSource(7))
				l := mustLayer(t, s.spec, Site{Name: "fd", D: d, Heads: 1, Warmup: 3, Dtype: tensor.Float64})
				l.SetTraining(s.train)
				l.SetMask(mask)
				if !s.train {
					// non-trivial running statistics
					st := l.State()
					for _, v := range [][]float64{st.Mean, st.Var, st.Psi2} {
						for k := range v {
							v[k] = 0.5 + r.Float64()
						}
					}
					if err := l.SetState(st); err != nil {
						t.Fatal(err)
					}
				}
				gam, bet := randomParams(r, l)
				h := newHarness(t, l, n, true)
				x := randSlice(r, n*d, 1.3, 0.4)
				w := lossWeights(r, n, d, mask)
				st := l.State()
				_, _, dx, dg, db := h.run(t, x, w)
				fdCompare(t, graphLoss(t, h, st, w), x, gam, bet, dx, dg, db)
			})
		}
	}
}

// rowStats are the per-row μ, D and s of §1.
func rowStats(xr []float64, conv normspec.Convention, eps float64) (mu, D, s float64) {
	fd := float64(len(xr))
	for _, v := range xr {
		mu += v
	}
	mu /= fd
	ss := 0.0
	for _, v := range xr {
		ss += (v - mu) * (v - mu)
	}
	if conv == normspec.ConvC {
		s = math.Sqrt(ss / (fd - 1))
		return mu, s + eps, s
	}
	D = math.Sqrt(ss/fd + eps)
	return mu, D, D
}

// frozenRowForward is a reference forward of the LayerNorm-simple variants
// in which the quantities the variant detaches are frozen at their values
// for x0: its true gradient at x = x0 is what the variant's backward
// computes.
func frozenRowForward(cfg normspec.Config, x, x0 []float64, n, d int) []float64 {
	y := make([]float64, n*d)
	for i := 0; i < n; i++ {
		xr, x0r := x[i*d:(i+1)*d], x0[i*d:(i+1)*d]
		mu, D, _ := rowStats(xr, cfg.Conv, cfg.Eps)
		mu0, D0, _ := rowStats(x0r, cfg.Conv, cfg.Eps)
		for k := range xr {
			var v float64
			switch cfg.Kind {
			case normspec.DetachNorm:
				v = (xr[k] - mu0) / D0
			case normspec.DetachMean:
				v = (xr[k] - mu0) / D
			case normspec.DetachVariance:
				v = (xr[k] - mu) / D0
			case normspec.AdaNorm:
				phi0 := cfg.C * (1 - cfg.K*(x0r[k]-mu0)/D0)
				v = phi0 * (xr[k] - mu) / D
			}
			y[i*d+k] = v
		}
	}
	return y
}

// TestGradFDFrozenDetached: detachnorm, detach-mean, detach-variance and
// adanorm deliberately do not back-propagate through μ, D or φ. Their
// backward is checked against central differences of frozenRowForward, a
// reference forward with the detached quantities frozen at the unperturbed
// input.
func TestGradFDFrozenDetached(t *testing.T) {
	const n, d = 7, 6
	for _, spec := range []string{"detachnorm", "detach-mean", "detach-variance", "adanorm", "adanorm:c=2,k=0.3"} {
		for _, conv := range []string{"", "conv=c"} {
			full := spec
			if conv != "" {
				if spec == "adanorm" || spec == "detachnorm" || spec == "detach-mean" || spec == "detach-variance" {
					full = spec + ":" + conv
				} else {
					full = spec + "," + conv
				}
			}
			for mname, mask := range fdMasks {
				t.Run(full+"/"+mname, func(t *testing.T) {
					r := rand.New(rand.NewSource(11))
					l := mustLayer(t, full, Site{Name: "fd", D: d, Dtype: tensor.Float64})
					l.SetMask(mask)
					h := newHarness(t, l, n, true)
					x := randSlice(r, n*d, 1.1, -0.3)
					w := lossWeights(r, n, d, mask)
					_, _, dx, _, _ := h.run(t, x, w)
					x0 := append([]float64(nil), x...)
					loss := func(x, _, _ []float64) float64 {
						y := frozenRowForward(l.cfg, x, x0, n, d)
						s := 0.0
						for i, v := range y {
							s += v * w[i]
						}
						return s
					}
					fdCompare(t, loss, x, nil, nil, dx, nil, nil)
				})
			}
		}
	}
}

// TestGradFDFrozenPowerNorm: PowerNorm's training backward uses ν and a
// detached divisor. With ν_{t-1} = 0 (its initial value) and D_b = D_f —
// code divisor during warmup, or paper divisor after it — it is the true
// gradient of a reference forward with ψ frozen at the unperturbed batch
// value (warmup) or at the running value (after warmup), GroupScaling
// included.
func TestGradFDFrozenPowerNorm(t *testing.T) {
	const n, d = 7, 6
	for _, c := range []struct {
		name, spec string
		step       int // t-1 before the checked step
	}{
		{"code-warmup", "powernorm:groups=3,warmup=5", 0},
		{"paper-after-warmup", "powernorm:groups=2,warmup=2,bwd=paper", 4},
	} {
		for mname, mask := range fdMasks {
			t.Run(c.name+"/"+mname, func(t *testing.T) {
				r := rand.New(rand.NewSource(13))
				l := mustLayer(t, c.spec, Site{Name: "fd", D: d, Dtype: tensor.Float64})
				l.SetMask(mask)
				st := l.State()
				st.Step = c.step
				for k := range st.Psi2 {
					st.Psi2[k] = 0.5 + r.Float64()
				}
				if err := l.SetState(st); err != nil {
					t.Fatal(err)
				}
				gam, bet := randomParams(r, l)
				h := newHarness(t, l, n, true)
				x := randSlice(r, n*d, 1.2, 0.2)
				w := lossWeights(r, n, d, mask)
				_, _, dx, dg, db := h.run(t, x, w)
				// the frozen divisor: ψ_B² of the unperturbed batch (warmup)
				// or the running ψ² before the step
				psi := append([]float64(nil), st.Psi2...)
				if c.step+1 <= l.warmup {
					xs := make([]float64, n*d)
					if err := GroupScaling(x, n, d, l.groups, l.cfg.Eps, xs); err != nil {
						t.Fatal(err)
					}
					psi = maskedColMeanSq(xs, n, d, mask)
				}
				loss := func(x, gam, bet []float64) float64 {
					xs := make([]float64, n*d)
					if err := GroupScaling(x, n, d, l.groups, l.cfg.Eps, xs); err != nil {
						t.Fatal(err)
					}
					s := 0.0
					for i := 0; i < n; i++ {
						for k := 0; k < d; k++ {
							y := gam[k]*xs[i*d+k]/math.Sqrt(psi[k]+l.cfg.Eps) + bet[k]
							s += y * w[i*d+k]
						}
					}
					return s
				}
				fdCompare(t, loss, x, gam, bet, dx, dg, db)
			})
		}
	}
}

func maskedColMeanSq(x []float64, n, d int, mask []bool) []float64 {
	out := make([]float64, d)
	cnt := 0
	for i := 0; i < n; i++ {
		if mask != nil && !mask[i] {
			continue
		}
		cnt++
		for k := 0; k < d; k++ {
			out[k] += x[i*d+k] * x[i*d+k]
		}
	}
	for k := range out {
		out[k] /= float64(cnt)
	}
	return out
}

// TestGroupScalingFD: the reference GroupScaling backward against central
// differences of the reference forward (the ops' GroupScaling is covered by
// the powernorm and batchnorm:groups cases above).
func TestGroupScalingFD(t *testing.T) {
	const n, d = 3, 8
	for _, G := range []int{1, 2, 4} { // m = 1 makes the gradient ~ε, below FD resolution
		r := rand.New(rand.NewSource(int64(G)))
		x := randSlice(r, n*d, 1, 0.3)
		w := randSlice(r, n*d, 1, 0)
		dx := make([]float64, n*d)
		if err := GroupScalingBackward(x, w, n, d, G, 1e-5, dx); err != nil {
			t.Fatal(err)
		}
		loss := func(x, _, _ []float64) float64 {
			out := make([]float64, n*d)
			if err := GroupScaling(x, n, d, G, 1e-5, out); err != nil {
				t.Fatal(err)
			}
			s := 0.0
			for i, v := range out {
				s += v * w[i]
			}
			return s
		}
		fdCompare(t, loss, x, nil, nil, dx, nil, nil)
	}
	if err := GroupScaling(make([]float64, 6), 1, 6, 4, 1e-5, make([]float64, 6)); err == nil {
		t.Error("d=6, groups=4 accepted")
	}
}

// TestNonFiniteClearsOnCleanStep: the flag describes the current step only.
func TestNonFiniteClearsOnCleanStep(t *testing.T) {
	l := mustLayer(t, "layernorm", Site{D: 2, Dtype: tensor.Float64})
	refStep(t, l, []float64{math.NaN(), 1, 2, 3}, []float64{1, 1, 1, 1}, 2)
	if !l.Taps().NonFinite {
		t.Fatal("NaN not flagged")
	}
	refStep(t, l, []float64{0, 1, 2, 3}, []float64{1, 1, 1, 1}, 2)
	if l.Taps().NonFinite {
		t.Fatal("flag stuck after a clean step")
	}
}
