package probes

import "math"

// DefaultShadowMomentum is the momentum m of the shadow EMAs (spec §5), equal
// to batchnorm's default running-statistics momentum.
const DefaultShadowMomentum = 0.05

// shadow holds one layer's shadow running statistics: EMAs of the per-feature
// batch statistics that the probe keeps for variants without running
// statistics of their own, so that every variant is measured on PowerNorm's
// Figure 2/4 axes.
//
// The update rule is batchnorm's (spec §2), initialised like batchnorm's
// running statistics (μ = 0, σ² = 1, ψ² = 1):
//
//	μ ← (1-m)μ + m·μ_B;  σ² ← (1-m)σ² + m·σ_B²·n/(n-1);  ψ² ← (1-m)ψ² + m·ψ_B²
//
// The variance EMA uses batchnorm's unbiased n/(n-1) correction so that, with
// equal momenta, the shadow distances of a batchnorm layer are exactly the
// distances to its own running statistics (tested). As in batchnorm, n = 1
// skips the variance update and n = 0 skips every update.
//
// The shadow sees only the batches whose Stats taps were computed: at a Stats
// interval k > 1 it is an EMA over every k-th batch.
type shadow struct {
	mean, vari, psi2 []float64
}

func (s *shadow) ensure(d int) {
	if len(s.mean) == d {
		return
	}
	s.mean = make([]float64, d)
	s.vari = make([]float64, d)
	s.psi2 = make([]float64, d)
	for k := 0; k < d; k++ {
		s.vari[k], s.psi2[k] = 1, 1
	}
}

// update folds one batch's statistics into the EMAs. Nil slices (statistics
// the layer did not report) leave their EMA untouched.
func (s *shadow) update(m float64, n int, mu, v, psi2 []float64) {
	if n <= 0 {
		return
	}
	ema(s.mean, mu, m, 1)
	if n > 1 {
		ema(s.vari, v, m, float64(n)/float64(n-1))
	}
	ema(s.psi2, psi2, m, 1)
}

func ema(run, batch []float64, m, scale float64) {
	if len(batch) != len(run) {
		return
	}
	for k, b := range batch {
		run[k] = (1-m)*run[k] + m*scale*b
	}
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
