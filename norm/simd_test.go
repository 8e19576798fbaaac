package norm

import (
	"github.com/normtop/normtop/normspec"
	"math"
	"math/rand"
	"testing"

	"gorgonia.org/tensor"
)

// withAVX runs f with the AVX kernels on or off and restores the setting.
func withAVX(on bool, f func()) {
	old := useAVX
	useAVX = on
	defer func() { useAVX = old }()
	f()
}

func randF32(r *rand.Rand, n int, scale, shift float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64()*scale + shift)
	}
	return v
}

func sameBits32(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s[%d] = %v, want %v (bit-identical)", what, i, got[i], want[i])
		}
	}
}

func sameBits64(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s[%d] = %v, want %v (bit-identical)", what, i, got[i], want[i])
		}
	}
}

// nearBits32 compares float32 outputs of an FMA kernel with the Go loop's:
// the float64 results differ in the last bit, which the rounding to float32
// hides except at a tie, so at most one float32 ulp apart.
func nearBits32(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if d := int64(math.Float32bits(got[i])) - int64(math.Float32bits(want[i])); d < -1 || d > 1 {
			t.Fatalf("%s[%d] = %v, want %v (within one float32 ulp)", what, i, got[i], want[i])
		}
	}
}

// near64 compares float64 results that differ by one rounding per term.
func near64(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-14*math.Max(1, math.Abs(want[i])) {
			t.Fatalf("%s[%d] = %v, want %v (FMA rounding only)", what, i, got[i], want[i])
		}
	}
}

// closeSum compares two float64 sums of n terms of magnitude ≤ scale: they
// differ only by summation order.
func closeSum(t *testing.T, what string, got, want, scale float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-13*scale {
		t.Fatalf("%s = %v, want %v (summation order only)", what, got, want)
	}
}

// TestAVXKernelsMatchGo: every AVX kernel against the Go loop it replaces,
// over lengths around the 16-element blocks (the Go tail does the rest).
// Element-wise results must be bit-identical (within FMA rounding for the
// kernels that use it), sums equal up to order.
func TestAVXKernelsMatchGo(t *testing.T) {
	if !useAVX {
		t.Skip("no AVX kernels on this machine or build")
	}
	r := rand.New(rand.NewSource(3))
	for _, n := range []int{0, 1, 15, 16, 17, 31, 32, 33, 48, 64, 70, 512} {
		in := newKernelInputs(r, n)
		in.checkLayerNorm(t)
		in.checkPowerNorm(t)
		in.checkMomentsAndColWrite(t)
		in.checkTaps(t)
		in.checkTapsNonFinite(t)
	}
}

// kernelInputs are one length's random inputs to every kernel, drawn in
// one order from the test's generator.
type kernelInputs struct {
	n                         int
	x, g                      []float32
	gam, bet, nu, a, ab, acc0 []float64
	mu, ra, sc, scale         float64
}

func newKernelInputs(r *rand.Rand, n int) kernelInputs {
	in := kernelInputs{n: n, mu: 0.37, ra: 0.81, sc: 1.3, scale: float64(n + 1)}
	in.x = randF32(r, n, 1.5, 0.4)
	in.g = randF32(r, n, 1, 0)
	in.gam = randSlice(r, n, 0.3, 1)
	in.bet = randSlice(r, n, 0.3, 0)
	in.nu = randSlice(r, n, 0.2, 0)
	in.a = randSlice(r, n, 0.1, 1)
	in.ab = randSlice(r, n, 0.1, 1)
	in.acc0 = randSlice(r, n, 1, 2)
	return in
}

func clone64(v []float64) []float64 { return append([]float64(nil), v...) }

// checkLayerNorm: the row sums, LayerNorm's write and dx, and its
// parameter gradients with the row sums of the backward.
func (in kernelInputs) checkLayerNorm(t *testing.T) {
	x, g, gam, bet, mu, ra, scale := in.x, in.g, in.gam, in.bet, in.mu, in.ra, in.scale
	var goS, goQ, avS, avQ float64
	withAVX(false, func() { goS, goQ = sumOf(x), sumSqDev(x, mu) })
	withAVX(true, func() { avS, avQ = sumOf(x), sumSqDev(x, mu) })
	closeSum(t, "sumOf", avS, goS, 4*scale)
	closeSum(t, "sumSqDev", avQ, goQ, 16*scale)

	yw, dxw := make([]float32, in.n), make([]float32, in.n)
	for k, v := range x {
		yw[k] = float32(gam[k]*((float64(v)-mu)*ra) + bet[k])
		dxw[k] = float32(ra*(gam[k]*float64(g[k])-0.2) - 0.05*(float64(v)-mu))
	}
	y, dx := make([]float32, in.n), make([]float32, in.n)
	k := lnWriteFast(x, gam, bet, mu, ra, y)
	nearBits32(t, "lnWrite", y[:k], yw[:k])
	k = lnDxFast(x, g, gam, mu, ra, 0.2, 0.05, dx)
	nearBits32(t, "lnDx", dx[:k], dxw[:k])

	var gsg, gsgx, asg, asgx float64
	dgG, dbG, dgA, dbA := clone64(in.acc0), clone64(in.acc0), clone64(in.acc0), clone64(in.acc0)
	withAVX(false, func() { gsg, gsgx = gradSumsAffine(x, g, gam, mu, ra, dgG, dbG) })
	withAVX(true, func() { asg, asgx = gradSumsAffine(x, g, gam, mu, ra, dgA, dbA) })
	closeSum(t, "Σĝ", asg, gsg, 4*scale)
	closeSum(t, "Σĝx̂", asgx, gsgx, 16*scale)
	near64(t, "dγ", dgA, dgG)
	sameBits64(t, "dβ", dbA, dbG)
}

// checkPowerNorm: PowerNorm's forward after warmup, the backward of one
// group, and dx.
func (in kernelInputs) checkPowerNorm(t *testing.T) {
	x, g, gam, bet, sc, a, ab, nu := in.x, in.g, in.gam, in.bet, in.sc, in.a, in.ab, in.nu
	yw, y := make([]float32, in.n), make([]float32, in.n)
	accW := clone64(in.acc0)
	for k, v := range x {
		xs := float64(v) * sc
		accW[k] += xs * xs
		yw[k] = float32(gam[k]*(xs*a[k]) + bet[k])
	}
	acc := clone64(in.acc0)
	k := pnFwdFast(x, sc, acc, a, gam, bet, y)
	sameBits32(t, "pnFwd y", y[:k], yw[:k])
	sameBits64(t, "pnFwd ψ²", acc[:k], accW[:k])

	var gdot, adot float64
	rbG, rbA := make([]float64, in.n), make([]float64, in.n)
	dgG, dbG, dgA, dbA := clone64(in.acc0), clone64(in.acc0), clone64(in.acc0), clone64(in.acc0)
	withAVX(false, func() { gdot = pnRowGroup(x, g, gam, sc, a, ab, nu, dgG, dbG, rbG) })
	withAVX(true, func() { adot = pnRowGroup(x, g, gam, sc, a, ab, nu, dgA, dbA, rbA) })
	closeSum(t, "Σ dx̃⊙x̃", adot, gdot, 16*in.scale)
	sameBits64(t, "pn dγ", dgA, dgG)
	sameBits64(t, "pn dβ", dbA, dbG)
	sameBits64(t, "pn dx̃", rbA, rbG)
	dxw, dx := make([]float32, in.n), make([]float32, in.n)
	for k, v := range x {
		dxw[k] = float32(sc * (rbG[k] - float64(v)*sc*0.3))
	}
	k = pnDxFast(x, rbG, sc, 0.3, dx)
	sameBits32(t, "pnDx", dx[:k], dxw[:k])
}

// checkMomentsAndColWrite: Theorem 1's moments of two rows in one call,
// and the per-feature output pass (BatchNorm, PN-V, PowerNorm in warmup).
func (in kernelInputs) checkMomentsAndColWrite(t *testing.T) {
	x, g, n := in.x, in.g, in.n
	if n%16 == 0 && n > 0 {
		var want [4]float64
		withAVX(false, func() { want[0], want[1], want[2], want[3] = rowMoments2(x, g) })
		dm, dv, gm, gv, ok := rowMoments2Fast(x, g)
		if !ok {
			t.Fatalf("n=%d: rowMoments2Fast declined", n)
		}
		for i, got := range []float64{dm, dv, gm, gv} {
			closeSum(t, "moments", got, want[i], 16)
		}
	}
	yw, y := make([]float32, n), make([]float32, n)
	for k, v := range x {
		yw[k] = float32(in.gam[k]*((float64(v)*in.sc-in.acc0[k])*in.a[k]) + in.bet[k])
	}
	k := colWriteFast(x, in.sc, in.acc0, in.a, in.gam, in.bet, y)
	nearBits32(t, "colWrite", y[:k], yw[:k])
}

// checkTaps: the tap kernels, per feature and fused over rows.
func (in kernelInputs) checkTaps(t *testing.T) {
	x, sc, n, scale, acc0 := in.x, in.sc, in.n, in.scale, in.acc0
	var gP, aP float64
	withAVX(false, func() { gP = pnGPsi2Group(x, sc, in.nu, in.a, in.ab) })
	withAVX(true, func() { aP = pnGPsi2Group(x, sc, in.nu, in.a, in.ab) })
	closeSum(t, "Σ(ν⊙x̂/D_b)²", aP, gP, 16*scale)
	mG, pG, mA, pA := clone64(acc0), clone64(acc0), clone64(acc0), clone64(acc0)
	vG, vA := clone64(acc0), clone64(acc0)
	var gSum, gMax, aSum, aMax float64
	withAVX(false, func() {
		gSum, gMax = tapAccum(x, sc, mG, pG)
		colAccumDev(x, sc, acc0, vG)
	})
	withAVX(true, func() {
		aSum, aMax = tapAccum(x, sc, mA, pA)
		colAccumDev(x, sc, acc0, vA)
	})
	closeSum(t, "tap Σx", aSum, gSum, 4*scale)
	if aMax != gMax {
		t.Fatalf("n=%d: max|x| = %v, want %v", n, aMax, gMax)
	}
	sameBits64(t, "tap mean", mA, mG)
	near64(t, "tap ψ²", pA, pG)
	near64(t, "tap var", vA, vG)
	if n%16 != 0 || n == 0 {
		return
	}
	vF := clone64(acc0)
	var gDev float64
	withAVX(false, func() { gDev = sumSqDev(x, in.mu) })
	closeSum(t, "fused Σ(x-μ)²", tapDevRowFast(x, n, in.mu, []float64{sc}, acc0, vF), gDev, 16*scale)
	near64(t, "fused tap var", vF, vG)
	mR, pR := clone64(acc0), clone64(acc0)
	rSum, rMax := tapAccumRowFast(x, n, []float64{sc}, mR, pR)
	closeSum(t, "row tap Σx", rSum, gSum, 4*scale)
	if rMax != gMax {
		t.Fatalf("n=%d: row max|x| = %v, want %v", n, rMax, gMax)
	}
	near64(t, "row tap mean", mR, mG)
	near64(t, "row tap ψ²", pR, pG)
}

// checkTapsNonFinite: a NaN or −Inf in x reaches the taps' max|x| as the
// Go loop has it, per feature and fused over rows.
func (in kernelInputs) checkTapsNonFinite(t *testing.T) {
	n, sc := in.n, in.sc
	if n == 0 {
		return
	}
	mG, pG, mA, pA := clone64(in.acc0), clone64(in.acc0), clone64(in.acc0), clone64(in.acc0)
	sameMax := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
	}
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(-1))} {
		xb := append([]float32(nil), in.x...)
		xb[n/2] = bad
		var gMax, aMax float64
		withAVX(false, func() { _, gMax = tapAccum(xb, sc, mG, pG) })
		withAVX(true, func() { _, aMax = tapAccum(xb, sc, mA, pA) })
		if !sameMax(aMax, gMax) {
			t.Fatalf("n=%d, x holds %v: max|x| = %v, want %v", n, bad, aMax, gMax)
		}
		if n%16 == 0 {
			_, rMax := tapAccumRowFast(xb, n, []float64{sc}, mA, pA)
			if !sameMax(rMax, gMax) {
				t.Fatalf("n=%d, x holds %v: row max|x| = %v, want %v", n, bad, rMax, gMax)
			}
		}
	}
}

// TestAVXLayersMatchGo runs whole float32 layers whose kernels use AVX at
// widths with and without a Go tail (d = 70, 128; PowerNorm groups of 64
// and 35), with a mask, through warmup and after it, with the kernels on
// and off: results may differ only by the summation order of the
// statistics.
func TestAVXLayersMatchGo(t *testing.T) {
	if !useAVX {
		t.Skip("no AVX kernels on this machine or build")
	}
	const n = 9
	mask := []bool{true, true, false, true, true, true, true, false, true}
	for _, c := range []struct {
		spec string
		d    int
	}{
		{"layernorm", 70}, {"layernorm", 128}, {"layernorm:conv=c", 128}, {"rmsnorm", 70},
		{"powernorm:warmup=2,groups=2", 128}, {"powernorm:warmup=2,groups=2", 70},
		{"powernorm:warmup=1,groups=1,bwd=paper", 128},
		{"batchnorm", 128}, {"batchnorm:groups=2", 70}, {"pn-v", 128},
		{"pn-v:groups=1", 128}, {"pn-v:groups=2", 70},
	} {
		t.Run(c.spec, func(t *testing.T) {
			r := rand.New(rand.NewSource(5))
			var ls [2]*Layer
			var hs [2]*harness
			gam := roundF32(randSlice(r, c.d, 0.3, 1))
			bet := roundF32(randSlice(r, c.d, 0.3, 0))
			for i := range ls {
				ls[i] = mustLayer(t, c.spec, Site{Name: "a", D: c.d, Dtype: tensor.Float32})
				setData(ls[i].gamma, gam)
				setData(ls[i].beta, bet)
				ls[i].SetMask(mask)
				ls[i].SetTapMask(normspec.TapAll)
				hs[i] = newHarness(t, ls[i], n, true)
			}
			for step := 0; step < 4; step++ {
				x := roundF32(randSlice(r, n*c.d, 1.5, 0.5))
				w := roundF32(lossWeights(r, n, c.d, mask))
				var out [2][4][]float64
				for i, on := range []bool{false, true} {
					withAVX(on, func() {
						y, _, dx, dg, db := hs[i].run(t, x, w)
						out[i] = [4][]float64{y, dx, dg, db}
					})
				}
				for j, what := range []string{"y", "dx", "dγ", "dβ"} {
					if e := maxRelErr(out[1][j], out[0][j]); e > 1e-6 {
						t.Fatalf("step %d: %s with AVX differs from Go by %g", step, what, e)
					}
				}
			}
			s0, s1 := ls[0].State(), ls[1].State()
			assertClose(t, "state", append(append([]float64(nil), s1.Psi2...), s1.Nu...),
				append(append([]float64(nil), s0.Psi2...), s0.Nu...), 1e-9)
			t0, t1 := ls[0].Taps(), ls[1].Taps()
			assertClose(t, "batch stats", append(append(append([]float64(nil), t1.BatchMean...), t1.BatchVar...), t1.BatchPsi2...),
				append(append(append([]float64(nil), t0.BatchMean...), t0.BatchVar...), t0.BatchPsi2...), 1e-9)
			for _, p := range [][2]float64{{t0.GMu, t1.GMu}, {t0.GVar, t1.GVar}, {t0.GPsi2, t1.GPsi2},
				{t0.DxVar, t1.DxVar}, {t0.DyVar, t1.DyVar}, {t0.InStd, t1.InStd}, {t0.InMaxAbs, t1.InMaxAbs}} {
				if !(relErr(p[0], p[1]) <= 1e-6) && !(math.IsNaN(p[0]) && math.IsNaN(p[1])) {
					t.Fatalf("taps differ: Go %v, AVX %v", p[0], p[1])
				}
			}
		})
	}
}
