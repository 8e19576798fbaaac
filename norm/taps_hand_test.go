package norm

import (
	"math"
	"testing"
)

// TestTapsHandWorked pins §5's LayerNorm-analogue gradient probes to values
// worked out by hand on one row, so that a formula change in both the
// kernel and a formula-mirroring test cannot slip through.
//
// x = [-3, 1, 1, 1]: μ = 0, Σ(x-μ)² = 12, so convention P has v = 3,
// D = √(3+ε) and convention C has s = √(12/3) = 2, D = s+ε. With the
// upstream g = [1, 0, 0, 0] (no gain): Σĝ = 1, x̂ = x/D, Σĝx̂ = -3/D,
// ‖x̂‖ = √12/D. Then
//
//	g_μ  = |Σĝ|·√d/(d·D)            = 2/(4D) = 1/(2D)   (both conventions)
//	g_σ² = ‖x̂‖·|Σĝx̂|/(n_d·s)
//	     P: (√12/D)(3/D)/(4D)       = 3√3/(2D³)   (≈ 1/2)
//	     C: (√12/D)(3/D)/(3·2)      = √3/D²       (≈ √3/4)
//
// and the detached variants report 0 for the terms their dx does not
// contain (§5): detachnorm both, detach-mean g_μ, detach-variance g_σ².
func TestTapsHandWorked(t *testing.T) {
	const eps = 1e-5
	x := []float64{-3, 1, 1, 1}
	g := []float64{1, 0, 0, 0}
	dP := math.Sqrt(3 + eps)
	dC := 2 + eps
	muP, varP := 1/(2*dP), 3*math.Sqrt(3)/(2*dP*dP*dP)
	muC, varC := 1/(2*dC), math.Sqrt(3)/(dC*dC)
	for _, c := range []struct {
		spec        string
		gmu, gvar   float64
		wantZeroMu  bool
		wantZeroVar bool
	}{
		{spec: "layernorm-simple", gmu: muP, gvar: varP},
		{spec: "layernorm-simple:conv=c", gmu: muC, gvar: varC},
		{spec: "layernorm", gmu: muP, gvar: varP}, // γ = 1 at init
		{spec: "layernorm:conv=c", gmu: muC, gvar: varC},
		{spec: "detachnorm", wantZeroMu: true, wantZeroVar: true},
		{spec: "detachnorm:conv=c", wantZeroMu: true, wantZeroVar: true},
		{spec: "detach-mean", wantZeroMu: true, gvar: varP},
		{spec: "detach-mean:conv=c", wantZeroMu: true, gvar: varC},
		{spec: "detach-variance", gmu: muP, wantZeroVar: true},
		{spec: "detach-variance:conv=c", gmu: muC, wantZeroVar: true},
	} {
		t.Run(c.spec, func(t *testing.T) {
			l := mustLayer(t, c.spec, Site{D: 4, Dtype: f64})
			refStep(t, l, x, g, 1)
			tp := l.Taps()
			if c.wantZeroMu {
				if tp.GMu != 0 {
					t.Errorf("GMu = %g, want 0 (the mean path is detached)", tp.GMu)
				}
			} else {
				checkScalar(t, "GMu", tp.GMu, c.gmu)
			}
			if c.wantZeroVar {
				if tp.GVar != 0 {
					t.Errorf("GVar = %g, want 0 (the variance path is detached)", tp.GVar)
				}
			} else {
				checkScalar(t, "GVar", tp.GVar, c.gvar)
			}
		})
	}
	// The approximate values in the comment, so that a reader can check
	// them without a calculator.
	for _, a := range []struct{ got, want float64 }{{muP, 0.5 / math.Sqrt(3)}, {varP, 0.5}, {muC, 0.25}, {varC, math.Sqrt(3) / 4}} {
		if math.Abs(a.got-a.want) > 1e-5 {
			t.Errorf("hand value %g, want ≈ %g", a.got, a.want)
		}
	}
}
