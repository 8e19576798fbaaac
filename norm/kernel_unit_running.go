package norm

import "math"

// instancenorm:running=1, PyTorch's track_running_stats. Training
// normalises each instance with its own statistics, as without the option,
// and moves the running mean and variance towards the batch's average
// instance mean and unbiased instance variance,
//
//	μ ← (1−m)·μ + m·mean_s μ_s,   σ² ← (1−m)·σ² + m·mean_s σ²_s·n_s/(n_s−1),
//
// over the samples with a real position (with two, for σ²: the unbiased
// variance of one position is undefined, and is skipped as batchnorm skips
// it, §4), n_s the sample's real positions. Inference normalises every
// position with μ and σ², a per-feature affine map as batchnorm's inference.

// unitRunning collects one batch's instance statistics.
type unitRunning struct {
	sumMu, sumVar []float64 // per feature
	nMu, nVar     int       // samples in each sum
}

// add adds a sample's statistics: per group its μ and Σ(x−μ)² over nu
// values, spread over the group's m features.
func (r *unitRunning) add(mu, ss []float64, nu float64, m int) {
	for gi := range mu {
		for k := gi * m; k < (gi+1)*m; k++ {
			r.sumMu[k] += mu[gi]
			if nu > 1 {
				r.sumVar[k] += ss[gi] / (nu - 1)
			}
		}
	}
	r.nMu++
	if nu > 1 {
		r.nVar++
	}
}

// update moves the layer's running statistics (nothing when no sample had
// a real position).
func (r *unitRunning) update(l *Layer) {
	mom := l.cfg.Momentum
	for k := range l.runMean {
		if r.nMu > 0 {
			l.runMean[k] = (1-mom)*l.runMean[k] + mom*r.sumMu[k]/float64(r.nMu)
		}
		if r.nVar > 0 {
			l.runVar[k] = (1-mom)*l.runVar[k] + mom*r.sumVar[k]/float64(r.nVar)
		}
	}
}

// unitInferForward: y = γ⊙(x − μ)/√(σ²+ε) + β with the running statistics.
func unitInferForward[T float](in *instance, x, gam, bet, y []T) {
	l := in.l
	d := l.d
	in.gam64 = toF64s(in.gam64, gam)
	in.bet64 = toF64s(in.bet64, bet)
	muF, aF := runningAffine(in)
	for i := 0; i < in.n; i++ {
		colWrite(x[i*d:(i+1)*d], 1, muF, aF, in.gam64[:d], in.bet64[:d], y[i*d:(i+1)*d])
	}
}

// unitInferBackward: the statistics are constants, dx = γ⊙g/√(σ²+ε) on
// real rows, 0 on padded ones.
func unitInferBackward[T float](in *instance, x, gam, g, dx []T) {
	l := in.l
	d := l.d
	in.gam64 = toF64s(in.gam64, gam)
	g64 := in.gam64[:d]
	dgam, dbet := in.dgamma[:d], in.dbeta[:d]
	zero(dgam)
	zero(dbet)
	muF, aF := runningAffine(in)
	for i := 0; i < in.n; i++ {
		xr, gr, dr := x[i*d:(i+1)*d], g[i*d:(i+1)*d], dx[i*d:(i+1)*d]
		if !in.real(i) {
			zeroT(dr)
			continue
		}
		colParamGrads(xr, gr, 1, muF, aF, dgam, dbet)
		for k, v := range gr {
			dr[k] = T(g64[k] * float64(v) * aF[k])
		}
	}
}

// runningAffine is the running μ and 1/√(σ²+ε) per feature.
func runningAffine(in *instance) (muF, aF []float64) {
	l := in.l
	muF, aF = in.unitMuF[:l.d], in.unitAF[:l.d]
	for k := range muF {
		muF[k] = l.runMean[k]
		aF[k] = 1 / math.Sqrt(l.runVar[k]+l.cfg.Eps)
	}
	return muF, aF
}
