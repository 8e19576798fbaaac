package probes

import "math"

// DefaultShadowMomentum is the rate m of the shadow EMAs (spec §5), equal to
// batchnorm's default running-statistics momentum.
const DefaultShadowMomentum = 0.05

// shadow holds one layer's shadow running statistics: EMAs of the per-feature
// batch statistics that the probe keeps for variants without running
// statistics of their own, so that every variant is measured on PowerNorm's
// Figure 2/4 axes.
//
// Spec §5: each shadow starts from the first batch's statistic (so its first
// distance is 0, not ‖1 − σ_B²‖/d from an arbitrary init), and all three use
// the same plain EMA at one rate m:
//
//	μ ← (1-m)μ + m·μ_B;  σ² ← (1-m)σ² + m·σ_B²;  ψ² ← (1-m)ψ² + m·ψ_B²
//
// so no distance is dominated by its initial value or differs from another
// only by its rate. (The shadow variance is an EMA of σ_B² itself, without
// batchnorm's n/(n−1): that factor would leave a floor of ‖σ_B²‖/(d(n−1)) in
// dist_var even for identical batches.) A one-row batch has no variance:
// n = 1 neither starts nor updates the variance shadow, and n = 0 touches
// nothing.
//
// The shadow sees only the batches whose Stats taps were computed: at a Stats
// interval k > 1 it is an EMA over every k-th batch.
type shadow struct {
	mean, vari, psi2 ema
}

// ema is one shadow statistic; nil until its first batch.
type ema []float64

// update folds one batch's statistics into the EMAs. Nil slices (statistics
// the layer did not report, or that must not be folded in) leave their EMA
// untouched.
func (s *shadow) update(m float64, n int, mu, v, psi2 []float64) {
	if n <= 0 {
		return
	}
	s.mean.fold(mu, m)
	if n > 1 {
		s.vari.fold(v, m)
	}
	s.psi2.fold(psi2, m)
}

// fold starts the EMA from batch when it has none yet (or the width
// changed), and otherwise moves it by m towards batch.
func (e *ema) fold(batch []float64, m float64) {
	if batch == nil {
		return
	}
	if len(*e) != len(batch) {
		*e = append(ema(nil), batch...)
		return
	}
	run := *e
	for k, b := range batch {
		run[k] = (1-m)*run[k] + m*b
	}
}

// against is the value a batch statistic is compared with before this
// batch's update: the EMA, or — before its first batch — the batch itself,
// since the shadow starts from it (distance 0).
func (e ema) against(batch []float64) []float64 {
	if len(e) != len(batch) {
		return batch
	}
	return e
}

// dist is spec §5's distance ‖a − b‖₂ / d. It is NaN when either side is
// missing or the lengths differ.
func dist(a, b []float64) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return math.NaN()
	}
	var s float64
	for k := range a {
		e := a[k] - b[k]
		s += e * e
	}
	return math.Sqrt(s) / float64(len(a))
}

// relDist is spec §5's relative distance ‖a − b‖₂ / ‖b‖₂ (rdist_var,
// rdist_psi2). NaN when either side is missing, the lengths differ, or
// ‖b‖₂ is 0: a zero denominator gives no value, never Inf.
func relDist(a, b []float64) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return math.NaN()
	}
	var num, den float64
	for k := range a {
		e := a[k] - b[k]
		num += e * e
		den += b[k] * b[k]
	}
	return ratioOrNaN(math.Sqrt(num), math.Sqrt(den))
}

// relDistMean is rdist_mu = ‖μ_B − μ‖₂ / ‖σ‖₂ with σ = √σ² per feature, so
// ‖σ‖₂ = √(Σ_k σ²_k). NaN when a side is missing, the lengths differ, or
// Σ_k σ²_k is not positive.
func relDistMean(batch, mean, vari []float64) float64 {
	if len(batch) == 0 || len(batch) != len(mean) || len(vari) != len(batch) {
		return math.NaN()
	}
	var num, den float64
	for k := range batch {
		e := batch[k] - mean[k]
		num += e * e
		den += vari[k]
	}
	return ratioOrNaN(math.Sqrt(num), math.Sqrt(den))
}

// ratioOrNaN is a/b for a positive, finite b, else NaN.
func ratioOrNaN(a, b float64) float64 {
	if !(b > 0) || math.IsInf(b, 0) {
		return math.NaN()
	}
	return a / b
}
