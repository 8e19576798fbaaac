package norm

import (
	"github.com/normtop/normtop/normspec"
	"math"
	"math/rand"
	"testing"
)

// naive per-feature statistics over the real rows (two passes).
func naiveColStats(x []float64, n, d int, mask []bool) (mean, vr, psi []float64) {
	mean, vr, psi = make([]float64, d), make([]float64, d), make([]float64, d)
	nr := 0.0
	for i := 0; i < n; i++ {
		if mask == nil || mask[i] {
			nr++
			for k := 0; k < d; k++ {
				mean[k] += x[i*d+k]
				psi[k] += x[i*d+k] * x[i*d+k]
			}
		}
	}
	for k := range mean {
		mean[k] /= nr
		psi[k] /= nr
	}
	for i := 0; i < n; i++ {
		if mask == nil || mask[i] {
			for k := 0; k < d; k++ {
				vr[k] += (x[i*d+k] - mean[k]) * (x[i*d+k] - mean[k]) / nr
			}
		}
	}
	return
}

func realRows(n int, mask []bool) []int {
	var r []int
	for i := 0; i < n; i++ {
		if mask == nil || mask[i] {
			r = append(r, i)
		}
	}
	return r
}

func checkScalar(t *testing.T, name string, got, want float64) {
	t.Helper()
	if relErr(got, want) > 1e-12 {
		t.Errorf("%s = %.17g, want %.17g", name, got, want)
	}
}

// TestTapsBatchNorm: every BatchNorm tap against a direct computation from
// the formulas of §2 and §5, with a mask.
func TestTapsBatchNorm(t *testing.T) {
	const n, d = 7, 4
	mask := []bool{true, false, true, true, true, false, true}
	r := rand.New(rand.NewSource(1))
	l := mustLayer(t, "batchnorm", Site{D: d, Dtype: f64})
	gam, bet := randomParams(r, l)
	l.SetMask(mask)
	refStep(t, l, randSlice(r, n*d, 1, 0), randSlice(r, n*d, 1, 0), n) // non-trivial running state
	before := l.State()
	x := randSlice(r, n*d, 2, 1)
	g := randSlice(r, n*d, 1, 0)
	_, dx, _, _ := refStep(t, l, x, g, n)
	tp := l.Taps()
	rows := realRows(n, mask)
	nr := float64(len(rows))
	mean, vr, psi := naiveColStats(x, n, d, mask)
	assertClose(t, "BatchMean", tp.BatchMean, mean, 1e-12)
	assertClose(t, "BatchVar", tp.BatchVar, vr, 1e-12)
	assertClose(t, "BatchPsi2", tp.BatchPsi2, psi, 1e-12)
	assertClose(t, "RunMean", tp.RunMean, before.Mean, 0)
	assertClose(t, "RunVar", tp.RunVar, before.Var, 0)
	if tp.RunPsi2 != nil {
		t.Error("RunPsi2 set for batchnorm")
	}
	// g_μ = -S1/(n·D); g_σ²,i = -x̂_i⊙S2/(n·D)
	S1, S2 := make([]float64, d), make([]float64, d)
	D := make([]float64, d)
	for k := range D {
		D[k] = math.Sqrt(vr[k] + 1e-5)
	}
	for _, i := range rows {
		for k := 0; k < d; k++ {
			gh := gam[k] * g[i*d+k]
			S1[k] += gh
			S2[k] += gh * (x[i*d+k] - mean[k]) / D[k]
		}
	}
	gmu := make([]float64, d)
	for k := range gmu {
		gmu[k] = -S1[k] / (nr * D[k])
	}
	gvar := 0.0
	for _, i := range rows {
		s := 0.0
		for k := 0; k < d; k++ {
			v := (x[i*d+k] - mean[k]) / D[k] * S2[k] / (nr * D[k])
			s += v * v
		}
		gvar += math.Sqrt(s) / nr
	}
	checkScalar(t, "GMu", tp.GMu, norm2(gmu))
	checkScalar(t, "GVar", tp.GVar, gvar)
	if !math.IsNaN(tp.GPsi2) || !math.IsNaN(tp.AdaFrac) || !math.IsNaN(tp.PNGamma) || !math.IsNaN(tp.NuNorm) {
		t.Error("taps that do not apply to batchnorm are not NaN")
	}
	checkTheoremMoments(t, tp, dx, g, n, d, rows)
	checkInputMoments(t, tp, x, d, rows)
	dr, bn := 0.0, 0.0
	for k := range gam {
		dr += (gam[k] - 1) * (gam[k] - 1)
		bn += bet[k] * bet[k]
	}
	checkScalar(t, "GammaDrift", tp.GammaDrift, math.Sqrt(dr))
	checkScalar(t, "BetaNorm", tp.BetaNorm, math.Sqrt(bn))
	if tp.Step != 2 || tp.N != len(rows) || tp.D != d || tp.Mask != normspec.TapAll || tp.NonFinite {
		t.Errorf("Step/N/D/Mask/NonFinite = %d/%d/%d/%v/%v", tp.Step, tp.N, tp.D, tp.Mask, tp.NonFinite)
	}
}

func checkTheoremMoments(t *testing.T, tp *normspec.Taps, dx, g []float64, n, d int, rows []int) {
	t.Helper()
	var dm, dv, gm, gv float64
	for _, i := range rows {
		m, v := moments(dx[i*d : (i+1)*d])
		dm += m / float64(len(rows))
		dv += v / float64(len(rows))
		m, v = moments(g[i*d : (i+1)*d])
		gm += m / float64(len(rows))
		gv += v / float64(len(rows))
	}
	if math.Abs(tp.DxMean-dm) > 1e-12*(math.Abs(dm)+math.Sqrt(dv)) {
		t.Errorf("DxMean = %v, want %v", tp.DxMean, dm)
	}
	checkScalar(t, "DxVar", tp.DxVar, dv)
	checkScalar(t, "DyMean", tp.DyMean, gm)
	checkScalar(t, "DyVar", tp.DyVar, gv)
}

func checkInputMoments(t *testing.T, tp *normspec.Taps, x []float64, d int, rows []int) {
	t.Helper()
	var all []float64
	for _, i := range rows {
		all = append(all, x[i*d:(i+1)*d]...)
	}
	m, v := moments(all)
	mx := 0.0
	for _, f := range all {
		mx = math.Max(mx, math.Abs(f))
	}
	checkScalar(t, "InMean", tp.InMean, m)
	checkScalar(t, "InStd", tp.InStd, math.Sqrt(v))
	checkScalar(t, "InMaxAbs", tp.InMaxAbs, mx)
}

// TestTapsLayerNormFamily: the LayerNorm analogue of g_μ and g_σ² (§5) in
// both conventions (g_μ divides by d·D in both), 0 for detached paths, the
// shadow batch statistics, and AdaNorm's fraction.
func TestTapsLayerNormFamily(t *testing.T) {
	const n, d = 6, 5
	mask := []bool{true, true, false, true, true, true}
	for _, spec := range []string{"layernorm", "layernorm:conv=c", "adanorm:k=0.8", "adanorm:k=0.8,conv=c",
		"detachnorm", "detach-mean:conv=c", "detach-variance"} {
		t.Run(spec, func(t *testing.T) {
			r := rand.New(rand.NewSource(2))
			l := mustLayer(t, spec, Site{D: d, Dtype: f64})
			gam, _ := randomParams(r, l)
			l.SetMask(mask)
			x := randSlice(r, n*d, 1.5, 0.5)
			g := randSlice(r, n*d, 1, 0)
			_, dx, _, _ := refStep(t, l, x, g, n)
			tp := l.Taps()
			rows := realRows(n, mask)
			nr := float64(len(rows))
			var gmu, gvar, frac float64
			for _, i := range rows {
				xr := x[i*d : (i+1)*d]
				mu, D, s := rowStats(xr, l.cfg.Conv, l.cfg.Eps)
				den := d * D
				if l.cfg.Conv == normspec.ConvC {
					den = (d - 1) * s
				}
				sg, sgx, sxx := 0.0, 0.0, 0.0
				for k := 0; k < d; k++ {
					xh := (xr[k] - mu) / D
					gh := g[i*d+k]
					if gam != nil {
						gh *= gam[k]
					}
					if l.cfg.Kind == normspec.AdaNorm {
						gh *= l.cfg.C * (1 - l.cfg.K*xh)
						if math.Abs(xh) >= 1/l.cfg.K {
							frac++
						}
					}
					sg += gh
					sgx += gh * xh
					sxx += xh * xh
				}
				// §5: g_μ's divisor is d·D in both conventions; a detached
				// path is not in dx and contributes 0.
				if k := l.cfg.Kind; k != normspec.DetachNorm && k != normspec.DetachMean {
					gmu += math.Abs(sg) * math.Sqrt(d) / (d * D) / nr
				}
				if k := l.cfg.Kind; k != normspec.DetachNorm && k != normspec.DetachVariance {
					gvar += math.Sqrt(sxx) * math.Abs(sgx) / den / nr
				}
			}
			checkScalar(t, "GMu", tp.GMu, gmu)
			checkScalar(t, "GVar", tp.GVar, gvar)
			if l.cfg.Kind == normspec.AdaNorm {
				checkScalar(t, "AdaFrac", tp.AdaFrac, frac/(nr*d))
				if frac == 0 {
					t.Error("test input never reaches |y| ≥ 1/k; the AdaFrac check is vacuous")
				}
			}
			mean, vr, psi := naiveColStats(x, n, d, mask)
			assertClose(t, "BatchMean", tp.BatchMean, mean, 1e-12)
			assertClose(t, "BatchVar", tp.BatchVar, vr, 1e-12)
			assertClose(t, "BatchPsi2", tp.BatchPsi2, psi, 1e-12)
			if tp.RunMean != nil || tp.RunVar != nil || tp.RunPsi2 != nil {
				t.Error("running statistics reported for a variant without them")
			}
			checkTheoremMoments(t, tp, dx, g, n, d, rows)
		})
	}
}

// TestTapsPowerNorm: shadow statistics after GroupScaling, ψ² before the
// update, Γ (largest feature), ‖ν_t‖ and g_ψ² = mean_i ‖ν_{t-1}⊙x̂_i/D_b‖.
func TestTapsPowerNorm(t *testing.T) {
	const n, d, G = 6, 4, 2
	r := rand.New(rand.NewSource(3))
	l := mustLayer(t, "powernorm:warmup=0,groups=2", Site{D: d, Dtype: f64})
	gam, _ := randomParams(r, l)
	st := State{Variant: "powernorm", Step: 3, Psi2: []float64{0.7, 1.2, 0.9, 1.5}, Nu: []float64{0.1, -0.2, 0.05, 0.3}}
	if err := l.SetState(st); err != nil {
		t.Fatal(err)
	}
	x := randSlice(r, n*d, 1, 0.2)
	g := randSlice(r, n*d, 1, 0)
	refStep(t, l, x, g, n)
	tp := l.Taps()
	eps := l.cfg.Eps
	xs := gsRef(t, x, n, d, G, eps)
	mean, vr, psi := naiveColStats(xs, n, d, nil)
	assertClose(t, "BatchMean", tp.BatchMean, mean, 1e-12)
	assertClose(t, "BatchVar", tp.BatchVar, vr, 1e-12)
	assertClose(t, "BatchPsi2", tp.BatchPsi2, psi, 1e-12)
	assertClose(t, "RunPsi2", tp.RunPsi2, st.Psi2, 0)
	gmax, gpsi := math.Inf(-1), 0.0
	Gam := make([]float64, d)
	for i := 0; i < n; i++ {
		s := 0.0
		for k := 0; k < d; k++ {
			xh := xs[i*d+k] / math.Sqrt(st.Psi2[k]+eps) // forward divisor after warmup
			Gam[k] += xh * xh / n
			v := st.Nu[k] * xh / math.Sqrt(psi[k]+eps) // code backward divisor
			s += v * v
		}
		gpsi += math.Sqrt(s) / n
	}
	for _, v := range Gam {
		gmax = math.Max(gmax, v)
	}
	checkScalar(t, "PNGamma", tp.PNGamma, gmax)
	checkScalar(t, "NuNorm", tp.NuNorm, norm2(l.State().Nu))
	checkScalar(t, "GPsi2", tp.GPsi2, gpsi)
	_ = gam
}

// TestTapMaskOff: groups masked off are NaN/nil and cost nothing.
func TestTapMaskOff(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	l := mustLayer(t, "batchnorm", Site{D: 3, Dtype: f64})
	l.SetTapMask(normspec.TapGrad)
	refStep(t, l, randSlice(r, 12, 1, 0), randSlice(r, 12, 1, 0), 4)
	tp := l.Taps()
	if tp.BatchMean != nil || tp.RunMean != nil || !math.IsNaN(tp.InMean) || !math.IsNaN(tp.GammaDrift) {
		t.Error("Stats/Params taps computed while masked off")
	}
	if math.IsNaN(tp.GMu) || math.IsNaN(tp.DxVar) {
		t.Error("Grad taps missing while on")
	}
	l.SetTapMask(normspec.TapStats | normspec.TapParams)
	refStep(t, l, randSlice(r, 12, 1, 0), randSlice(r, 12, 1, 0), 4)
	tp = l.Taps()
	if !math.IsNaN(tp.GMu) || !math.IsNaN(tp.DxVar) || tp.BatchMean == nil || math.IsNaN(tp.GammaDrift) {
		t.Errorf("mask Stats|Params: %+v", tp)
	}
	if tp.Mask != normspec.TapStats|normspec.TapParams {
		t.Errorf("Mask = %v", tp.Mask)
	}
}

// TestNonFiniteFlagged: NaN or Inf in the input or the upstream gradient
// sets Taps.NonFinite for every variant, whatever the tap mask; clean
// steps clear it.
func TestNonFiniteFlagged(t *testing.T) {
	const n, d = 4, 4
	for _, v := range normspec.Variants() {
		t.Run(v.Name, func(t *testing.T) {
			r := rand.New(rand.NewSource(5))
			for _, c := range []struct {
				name     string
				bad      float64
				inInput  bool
				wantFlag bool
			}{{"clean", 0, true, false}, {"NaN input", math.NaN(), true, true}, {"Inf input", math.Inf(1), true, true},
				{"NaN gradient", math.NaN(), false, true}, {"-Inf gradient", math.Inf(-1), false, true}} {
				// a fresh layer each time: a NaN gradient rightly poisons
				// PowerNorm's ν, which keeps the flag up on later steps
				l := mustLayer(t, v.Name, Site{D: d, Heads: 2, Dtype: f64, SampleRows: 2})
				l.SetTapMask(0)
				x := randSlice(r, n*d, 1, 0)
				g := randSlice(r, n*d, 1, 0)
				if c.wantFlag {
					if c.inInput {
						x[5] = c.bad
					} else {
						g[6] = c.bad
					}
				}
				refStep(t, l, x, g, n)
				if l.Taps().NonFinite != c.wantFlag {
					t.Errorf("%s: NonFinite = %v", c.name, l.Taps().NonFinite)
				}
			}
		})
	}
}
