package probes

import (
	"fmt"
	"github.com/normtop/normtop/normspec"
)

// Warmup is docs/math.md §5's warm-up window of one variant's layers: a
// layer's own running statistics start at their §2 init (μ = 0, σ² = ψ² =
// 1), so the distances measured against them start near ‖1 − σ_B²‖/d and
// decay as (1−rate)^t. Summaries, findings and charts skip (or mark) the
// first ⌈3/rate⌉ steps of those distances, where (1−rate)^t has fallen
// below e⁻³ ≈ 5%. Shadow statistics start from the first batch and need no
// window (§5), so the other distances and every other probe have none.
type Warmup struct {
	Steps  int     // the window: steps 1..Steps are skipped; 0 when there is none
	Rate   float64 // the EMA rate of the running statistics: batchnorm's momentum m, 1−α for pn-v and powernorm
	Probes []Probe // the distances measured against the layer's own running statistics
}

// WarmupOf returns the warm-up window of a variant from its spec, e.g.
// "batchnorm" (m = 0.05: 60 steps of dist_mu and dist_var) or
// "pn-v:alpha=0.9" (1−α = 0.1: 30 steps of dist_psi2).
func WarmupOf(spec string) (Warmup, error) {
	c, err := normspec.Parse(spec)
	if err != nil {
		return Warmup{}, fmt.Errorf("variant %q: %w", spec, err)
	}
	w := Warmup{Steps: c.WarmupSteps(), Rate: c.WarmupRate()}
	if w.Steps == 0 {
		return w, nil
	}
	switch c.Kind {
	case normspec.BatchNorm:
		w.Probes = runningMeanVarProbes
	case normspec.PNV, normspec.PowerNorm:
		w.Probes = []Probe{DistPsi2, RdistPsi2}
	}
	return w, nil
}

// runningMeanVarProbes are the distances measured against a running μ and
// σ² (BatchNorm's): the probes a BatchNorm layer's window applies to.
var runningMeanVarProbes = []Probe{DistMu, DistVar, RdistMu, RdistVar}

// Applies reports whether probe p has a window.
func (w Warmup) Applies(p Probe) bool {
	for _, q := range w.Probes {
		if q == p {
			return true
		}
	}
	return false
}

// Skips reports whether probe p's value at step lies in the window.
func (w Warmup) Skips(p Probe, step int) bool { return step <= w.Steps && w.Applies(p) }
