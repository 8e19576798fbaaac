package norm

import (
	"math"
	"math/rand"
	"testing"
)

// hand-computation helpers, written from docs/math.md §2 directly.

func gsRef(t *testing.T, x []float64, n, d, groups int, eps float64) []float64 {
	t.Helper()
	xs := make([]float64, len(x))
	if err := GroupScaling(x, n, d, groups, eps, xs); err != nil {
		t.Fatal(err)
	}
	return xs
}

func assertClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	if e := maxRelErr(got, want); e > tol {
		t.Errorf("%s: relative error %.3g > %g\n got  %v\n want %v", what, e, tol, got, want)
	}
}

// TestPowerNormReductionOracle: with ν_{t-1} = Λ of this batch and
// ψ_{t-1} = ψ_B, PowerNorm's paper backward equals PN-V's exact gradient
// (§2), on the GroupScaling output; the forwards agree too.
func TestPowerNormReductionOracle(t *testing.T) {
	const n, d, G = 9, 8, 2
	for mname, mask := range map[string][]bool{"nomask": nil, "mask": {true, true, false, true, true, true, false, true, true}} {
		t.Run(mname, func(t *testing.T) {
			r := rand.New(rand.NewSource(5))
			pn := mustLayer(t, "powernorm:bwd=paper,warmup=0,groups=2", Site{D: d, Dtype: f64})
			pv := mustLayer(t, "pn-v", Site{D: d, Dtype: f64})
			gam, bet := randomParams(r, pn)
			setData(pv.gamma, gam)
			setData(pv.beta, bet)
			pn.SetMask(mask)
			pv.SetMask(mask)
			x := randSlice(r, n*d, 1.5, 0.3)
			g := lossWeights(r, n, d, mask)
			eps := pn.cfg.Eps
			xs := gsRef(t, x, n, d, G, eps)
			psiB := maskedColMeanSq(xs, n, d, mask)
			lam := make([]float64, d)
			nr := 0.0
			for i := 0; i < n; i++ {
				if mask != nil && !mask[i] {
					continue
				}
				nr++
				for k := 0; k < d; k++ {
					xh := xs[i*d+k] / math.Sqrt(psiB[k]+eps)
					lam[k] += gam[k] * g[i*d+k] * xh
				}
			}
			for k := range lam {
				lam[k] /= nr
			}
			if err := pn.SetState(State{Variant: "powernorm", Step: 7, Psi2: psiB, Nu: lam}); err != nil {
				t.Fatal(err)
			}
			yp, dxp, dgp, dbp := refStep(t, pn, x, g, n)
			yv, dxs, dgv, dbv := refStep(t, pv, xs, g, n)
			dxv := make([]float64, n*d)
			if err := GroupScalingBackward(x, dxs, n, d, G, eps, dxv); err != nil {
				t.Fatal(err)
			}
			assertClose(t, "y", yp, yv, 1e-12)
			assertClose(t, "dx", dxp, dxv, 1e-12)
			assertClose(t, "dγ", dgp, dgv, 1e-12)
			assertClose(t, "dβ", dbp, dbv, 1e-12)
		})
	}
}

// pnHand is PowerNorm written out from §2 steps 1-7 for one training step.
type pnHand struct {
	psi2, nu []float64
	t        int
}

func (h *pnHand) step(x, g, gam, bet []float64, n, d, G, W int, af, ab, eps float64, paper bool, xsOf func([]float64) []float64, gsBack func(x, g []float64) []float64) (y, dx []float64) {
	h.t++
	xs := xsOf(x)
	psiB := maskedColMeanSq(xs, n, d, nil)
	df := make([]float64, d)
	db := make([]float64, d)
	for k := 0; k < d; k++ {
		if h.t <= W {
			df[k] = math.Sqrt(psiB[k] + eps)
		} else {
			df[k] = math.Sqrt(h.psi2[k] + eps)
		}
		if paper {
			db[k] = math.Sqrt(h.psi2[k] + eps)
		} else {
			db[k] = math.Sqrt(psiB[k] + eps)
		}
	}
	y = make([]float64, n*d)
	xh := make([]float64, n*d)
	for i := 0; i < n; i++ {
		for k := 0; k < d; k++ {
			xh[i*d+k] = xs[i*d+k] / df[k]
			y[i*d+k] = gam[k]*xh[i*d+k] + bet[k]
		}
	}
	ft := float64(h.t)
	for k := 0; k < d; k++ {
		if h.t < W {
			h.psi2[k] = h.psi2[k]*(ft-1)/ft + psiB[k]/ft
		}
		h.psi2[k] = af*h.psi2[k] + (1-af)*psiB[k]
	}
	dxs := make([]float64, n*d)
	Gam := make([]float64, d)
	Lam := make([]float64, d)
	for i := 0; i < n; i++ {
		for k := 0; k < d; k++ {
			gh := gam[k] * g[i*d+k]
			dxs[i*d+k] = (gh - h.nu[k]*xh[i*d+k]) / db[k]
			Gam[k] += xh[i*d+k] * xh[i*d+k] / float64(n)
			Lam[k] += gh * xh[i*d+k] / float64(n)
		}
	}
	for k := 0; k < d; k++ {
		h.nu[k] = h.nu[k]*(1-(1-ab)*Gam[k]) + (1-ab)*Lam[k]
	}
	return y, gsBack(x, dxs)
}

// TestPowerNormWarmupAndState: steps 1..6 with W = 3 against the hand
// computation of §2 steps 3-6: batch divisor for t ≤ W, running divisor
// after; cumulative average for t < W then EMA; ν after every step; both
// backward divisors.
func TestPowerNormWarmupAndState(t *testing.T) {
	const n, d, G, W = 6, 4, 2, 3
	for _, paper := range []bool{false, true} {
		spec := "powernorm:warmup=3,groups=2,alpha_fwd=0.8,alpha_bwd=0.7"
		if paper {
			spec += ",bwd=paper"
		}
		t.Run(spec, func(t *testing.T) {
			r := rand.New(rand.NewSource(9))
			l := mustLayer(t, spec, Site{D: d, Dtype: f64})
			gam, bet := randomParams(r, l)
			eps := l.cfg.Eps
			h := &pnHand{psi2: filled(d, 1), nu: make([]float64, d)}
			xsOf := func(x []float64) []float64 { return gsRef(t, x, n, d, G, eps) }
			gsBack := func(x, g []float64) []float64 {
				dx := make([]float64, n*d)
				if err := GroupScalingBackward(x, g, n, d, G, eps, dx); err != nil {
					t.Fatal(err)
				}
				return dx
			}
			for step := 1; step <= 6; step++ {
				x := randSlice(r, n*d, 1+0.3*float64(step), 0.2)
				g := randSlice(r, n*d, 1, 0)
				wantY, wantDx := h.step(x, g, gam, bet, n, d, G, W, 0.8, 0.7, eps, paper, xsOf, gsBack)
				y, dx, _, _ := refStep(t, l, x, g, n)
				assertClose(t, "y", y, wantY, 1e-12)
				assertClose(t, "dx", dx, wantDx, 1e-12)
				st := l.State()
				if st.Step != step {
					t.Fatalf("step %d: t = %d", step, st.Step)
				}
				assertClose(t, "ψ²", st.Psi2, h.psi2, 1e-12)
				assertClose(t, "ν", st.Nu, h.nu, 1e-12)
			}
		})
	}
}

// TestPowerNormWarmupBoundaries pins the two comparisons of §2: the forward
// divides by ψ_B while t ≤ W (so at t = W too), and ψ² is a cumulative
// average only while t < W (so not at t = W).
func TestPowerNormWarmupBoundaries(t *testing.T) {
	const n, d = 5, 2
	r := rand.New(rand.NewSource(2))
	x := randSlice(r, n*d, 2, 0)
	for _, c := range []struct {
		prevStep      int
		batchDivisor  bool
		cumulativeAvg bool
	}{{2, true, true}, {3, true, false}, {4, false, false}} { // W = 4: t = 3, 4, 5
		l := mustLayer(t, "powernorm:warmup=4,groups=1,alpha_fwd=0.5", Site{D: d, Dtype: f64})
		run := []float64{3, 0.25}
		if err := l.SetState(State{Variant: "powernorm", Step: c.prevStep, Psi2: run, Nu: make([]float64, d)}); err != nil {
			t.Fatal(err)
		}
		eps := l.cfg.Eps
		xs := gsRef(t, x, n, d, 1, eps)
		psiB := maskedColMeanSq(xs, n, d, nil)
		y, _, _, _ := refStep(t, l, x, nil, n)
		tt := float64(c.prevStep + 1)
		for k := 0; k < d; k++ {
			div := math.Sqrt(run[k] + eps)
			if c.batchDivisor {
				div = math.Sqrt(psiB[k] + eps)
			}
			if relErr(y[k], xs[k]/div) > 1e-12 {
				t.Errorf("t=%v: y = %v, want x/%v (batch divisor %v)", tt, y[k], div, c.batchDivisor)
			}
			want := run[k]
			if c.cumulativeAvg {
				want = want*(tt-1)/tt + psiB[k]/tt
			}
			want = 0.5*want + 0.5*psiB[k]
			if got := l.State().Psi2[k]; relErr(got, want) > 1e-12 {
				t.Errorf("t=%v: ψ² = %v, want %v (cumulative %v)", tt, got, want, c.cumulativeAvg)
			}
		}
	}
}

// TestRunningStateAfterKSteps: BatchNorm's running μ, σ² (momentum, n/(n-1))
// and PN-V's running ψ² after k steps against a hand computation.
func TestRunningStateAfterKSteps(t *testing.T) {
	const n, d, k = 5, 3, 4
	r := rand.New(rand.NewSource(4))
	bn := mustLayer(t, "batchnorm:momentum=0.2", Site{D: d, Dtype: f64})
	pv := mustLayer(t, "pn-v:alpha=0.7", Site{D: d, Dtype: f64})
	mu, va, psi := make([]float64, d), filled(d, 1), filled(d, 1)
	for s := 0; s < k; s++ {
		x := randSlice(r, n*d, 1.5, float64(s))
		refStep(t, bn, x, nil, n)
		refStep(t, pv, x, nil, n)
		for f := 0; f < d; f++ {
			m, v := 0.0, 0.0
			for i := 0; i < n; i++ {
				m += x[i*d+f] / n
			}
			for i := 0; i < n; i++ {
				v += (x[i*d+f] - m) * (x[i*d+f] - m) / n
			}
			mu[f] = 0.8*mu[f] + 0.2*m
			va[f] = 0.8*va[f] + 0.2*v*n/(n-1)
			psi[f] = 0.7*psi[f] + 0.3*(v+m*m)
		}
	}
	assertClose(t, "BN μ", bn.State().Mean, mu, 1e-12)
	assertClose(t, "BN σ²", bn.State().Var, va, 1e-12)
	assertClose(t, "PN-V ψ²", pv.State().Psi2, psi, 1e-12)
	if bn.State().Step != k || pv.State().Step != k {
		t.Errorf("steps %d, %d, want %d", bn.State().Step, pv.State().Step, k)
	}
}
