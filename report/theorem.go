package report

import (
	"math"

	"github.com/normtop/normtop/probes"
)

// Theorem 1 of Xu et al. (docs/math.md §1) states, per row, mean(dx) and
// var(dx) against var(g)/D². The probes record dx_mean, dx_var, dy_mean and
// dy_var averaged over the rows of a batch, and no per-row D, so:
//   - "mean(dx) = 0" is measurable: it holds in every row, hence in the
//     average; the check is |dx_mean| ≤ meanZeroTol·√dx_var at every step
//     measured (float32 rounding leaves ~1e-7 relative).
//   - "mean(dx) = ḡ/D" (detachnorm, detach-mean) and every var(dx) relation
//     need each row's ḡ and D: not measurable from row averages. The report
//     shows dx_var/dy_var, which for detachnorm and detach-variance is the
//     var(g)-weighted mean of 1/D² over rows, and for layernorm-simple and
//     detach-mean at most that.
const meanZeroTol = 1e-3

// TheoremCheck is the Theorem-1 check of one layer over the replicates.
type TheoremCheck struct {
	Claim     string        // what Theorem 1 says of mean(dx) for this variant; "" when it says nothing
	Measured  bool          // the claim can be checked from the recorded probes
	MeanRatio probes.MeanSD // per replicate: max over steps of |dx_mean|/√dx_var
	VarRatio  probes.MeanSD // per replicate: median over steps of dx_var/dy_var
	Verdict   string        // "holds", "fails", "no gradient probes recorded", or why it is not measurable
}

// theoremClaims maps registry names to Theorem 1's mean(dx) (docs/math.md §1;
// layernorm, adanorm and the zoo share layernorm-simple's mean-free backward).
var theoremClaims = map[string]struct {
	claim    string
	meanZero bool
}{
	"layernorm":        {"mean(dx) = 0 (as layernorm-simple, through γ⊙g)", true},
	"layernorm-simple": {"mean(dx) = 0, var(dx) ≤ var(g)/D²", true},
	"adanorm":          {"mean(dx) = 0 (layernorm-simple's backward of φ⊙g)", true},
	"detach-variance":  {"mean(dx) = 0, var(dx) = var(g)/D²", true},
	"detachnorm":       {"mean(dx) = ḡ/D, var(dx) = var(g)/D²", false},
	"detach-mean":      {"mean(dx) = ḡ/D, var(dx) ≤ var(g)/D²", false},
	// The zoo's moments are per normalization unit (docs/math.md §8), and its
	// backward is layernorm's over the unit.
	"groupnorm":    {"mean(dx) = 0 over each unit (layernorm's backward per group)", true},
	"instancenorm": {"mean(dx) = 0 over each unit (layernorm's backward per sample and feature)", true},
}

func theoremCheck(g *Group, l int) TheoremCheck {
	c := TheoremCheck{}
	tc, ok := theoremClaims[g.Name]
	if !ok {
		return c
	}
	c.Claim = tc.claim
	mr := make([]float64, len(g.Reps))
	vr := make([]float64, len(g.Reps))
	n := 0
	worst := math.NaN()
	for i, r := range g.Reps {
		ls := r.Layers[l]
		mr[i], vr[i] = ls.MeanRatioMax, ls.VarRatioMed
		n += ls.TheoremN
		if ls.TheoremN > 0 && !(ls.MeanRatioMax <= worst) {
			worst = ls.MeanRatioMax
		}
	}
	c.MeanRatio, c.VarRatio = probes.NewMeanSD(mr), probes.NewMeanSD(vr)
	switch {
	case n == 0:
		c.Verdict = "no gradient probes recorded"
	case !tc.meanZero:
		c.Verdict = "not measurable (needs each row's D)"
	case worst <= meanZeroTol:
		c.Measured, c.Verdict = true, "holds"
	default:
		c.Measured, c.Verdict = true, "fails"
	}
	return c
}
