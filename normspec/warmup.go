package normspec

import "math"

// WarmupSteps is how many steps the variant's own running statistics need
// to forget their initial value (docs/math.md §5, "Warm-up window"): ⌈3/r⌉ for
// an EMA of rate r, after which the init weighs (1−r)^⌈3/r⌉ < e⁻³ ≈ 5%.
// batchnorm's rate is its momentum (60 steps at 0.05); pn-v and powernorm
// update ψ² with rate 1−α_fwd (30 steps at α = 0.9). Variants without running
// statistics of their own have no window: 0. Summaries skip the window's
// steps and charts mark them.
func (c Config) WarmupSteps() int {
	rate := c.WarmupRate()
	if !(rate > 0) || rate > 1 {
		return 0
	}
	// 1−0.9 is 0.0999…98 in binary: round away the float dust before the
	// ceiling, or 30 becomes 31.
	return int(math.Ceil(3/rate - 1e-9))
}

// WarmupRate is the EMA rate of the variant's own running statistics:
// batchnorm's momentum, 1−α_fwd for pn-v and powernorm, 0 for variants
// without running statistics. instancenorm:running=1 keeps some, but they
// average per-instance statistics, so its distances are against shadows
// (docs/math.md §8) and it has no window either.
func (c Config) WarmupRate() float64 {
	switch c.Kind {
	case BatchNorm:
		return c.Momentum
	case PNV, PowerNorm:
		return 1 - c.AlphaFwd
	}
	return 0
}
