package norm

import (
	"github.com/normtop/normtop/normspec"
	"math"
)

// Per-feature family (docs/math.md §2): BatchNorm and PN-V take statistics over
// the real rows of each feature, optionally after GroupScaling (BatchNorm's
// groups option). The batch statistics need a pass over the whole batch
// before any output can be written.

// colForward: y = γ⊙(x·sc - μ)/D + β per feature, with the batch's
// statistics over the real rows in training (colBatchStats) and the running
// ones otherwise; sc is GroupScaling's scale (1 without it).
func colForward[T float](in *instance, x, gam, bet, y []T) {
	l := in.l
	d := l.d
	nonFinite := false
	if l.groups > 0 {
		nonFinite = gsScales(in, x)
	}
	in.statPath = in.training && in.nReal > 0
	if !in.statPath {
		colRunningStats(in)
	} else if colBatchStats(in, x) {
		nonFinite = true
	}
	mu, a := in.colMu[:d], in.colA[:d]
	in.gam64 = toF64s(in.gam64, gam[:d])
	in.bet64 = toF64s(in.bet64, bet[:d])
	g64, b64 := in.gam64, in.bet64
	if all := x[:in.n*d]; in.plainRows() && colMatGo(all, d) {
		colWriteMat(all, d, mu, a, g64, b64, y[:in.n*d])
	} else if in.plainRows() && colMatFMA(all, d) {
		colWriteMatFMA(all, d, mu, a, g64, b64, y[:in.n*d])
	} else {
		colWriteRows(in, x, mu, a, g64, b64, y)
	}
	if nonFinite && in.training {
		l.taps.NonFinite = true
	}
}

// colWriteRows is colForward's output pass a row at a time.
func colWriteRows[T float](in *instance, x []T, mu, a, g64, b64 []float64, y []T) {
	d := in.l.d
	G, m := in.layout()
	for i := 0; i < in.n; i++ {
		xr := x[i*d : (i+1)*d]
		yr := y[i*d : (i+1)*d]
		for gi := 0; gi < G; gi++ {
			lo, hi := gi*m, (gi+1)*m
			colWrite(xr[lo:hi], in.scale(i, gi), mu[lo:hi], a[lo:hi], g64[lo:hi], b64[lo:hi], yr[lo:hi])
		}
	}
}

// plainRows says every row is real and there is no GroupScaling: a pass
// over the rows then needs no call per row (forRealGroups' closure), which
// at the resnet's 8-32 features a row and 25,088 rows cost more than the
// arithmetic. The same sums in the same order, so the same bits.
func (in *instance) plainRows() bool { return in.l.groups == 0 && in.mask == nil }

// forRealGroups calls f for every GroupScaling group of every real row (the
// whole row without GroupScaling), in row order: row i, features [lo, hi),
// scale sc.
func forRealGroups(in *instance, f func(i, lo, hi int, sc float64)) {
	G, m := in.layout()
	for i := 0; i < in.n; i++ {
		if !in.real(i) {
			continue
		}
		for gi := 0; gi < G; gi++ {
			f(i, gi*m, (gi+1)*m, in.scale(i, gi))
		}
	}
}

// colBatchStats computes the batch statistics over the real rows, μ and
// 1/D per feature into in.colMu and in.colA, and updates the running ones:
// the first pass sums x·sc and (x·sc)² per feature, then BatchNorm
// (bnStats) or PN-V (pnvStats) finish. It reports a non-finite statistic.
func colBatchStats[T float](in *instance, x []T) (nonFinite bool) {
	d := in.l.d
	s1, s2 := in.acc1, in.acc2
	zero(s1)
	zero(s2)
	if all := x[:in.n*d]; in.plainRows() && colMat(all, d) {
		colAccumMat(all, d, s1, s2)
	} else if in.plainRows() {
		for off := 0; off < in.n*d; off += d {
			colAccum(x[off:off+d], 1, s1, s2)
		}
	} else {
		forRealGroups(in, func(i, lo, hi int, sc float64) {
			colAccum(x[i*d+lo:i*d+hi], sc, s1[lo:hi], s2[lo:hi])
		})
	}
	if in.l.cfg.Kind == normspec.BatchNorm {
		return bnStats(in, x)
	}
	return pnvStats(in)
}

// bnStats finishes BatchNorm's statistics from the sums in in.acc1: the
// mean μ = Σx·sc/n, then in a second pass the variance
// σ² = Σ(x·sc - μ)²/n (two passes, exact where E[x²] - μ² would cancel)
// and 1/D = 1/√(σ²+ε); the running mean and the running unbiased variance
// move towards them by the momentum.
func bnStats[T float](in *instance, x []T) (nonFinite bool) {
	l := in.l
	d := l.d
	nr := float64(in.nReal)
	mean, vs := in.acc1, in.acc3
	for k := range mean {
		mean[k] /= nr
	}
	zero(vs)
	if all := x[:in.n*d]; in.plainRows() && colMatGo(all, d) {
		colAccumDevMat(all, d, mean, vs)
	} else if in.plainRows() && colMatFMA(all, d) {
		colAccumDevMatFMA(all, d, mean, vs)
	} else if in.plainRows() {
		for off := 0; off < in.n*d; off += d {
			colAccumDev(x[off:off+d], 1, mean, vs)
		}
	} else {
		forRealGroups(in, func(i, lo, hi int, sc float64) {
			colAccumDev(x[i*d+lo:i*d+hi], sc, mean[lo:hi], vs[lo:hi])
		})
	}
	mom := l.cfg.Momentum
	for k := 0; k < d; k++ {
		// A constant column must give x̂ = 0 exactly (§4).
		if vs[k] <= 1e-20*mean[k]*mean[k]*nr {
			if c, ok := constantColumn(in, x, k); ok {
				mean[k], vs[k] = c, 0
			}
		}
		v := vs[k] / nr
		if !finite(v) {
			nonFinite = true
		}
		in.colMu[k] = mean[k]
		in.colA[k] = 1 / math.Sqrt(v+l.cfg.Eps)
		l.runMean[k] = (1-mom)*l.runMean[k] + mom*mean[k]
		if in.nReal > 1 {
			l.runVar[k] = (1-mom)*l.runVar[k] + mom*v*nr/(nr-1)
		}
	}
	return nonFinite
}

// pnvStats finishes PN-V's statistics from the sums of squares in in.acc2:
// ψ² = Σ(x·sc)²/n, 1/D = 1/√(ψ²+ε), no mean, and the running
// ψ² ← α·ψ² + (1-α)·ψ²_B.
func pnvStats(in *instance) (nonFinite bool) {
	l := in.l
	nr := float64(in.nReal)
	alpha := l.cfg.AlphaFwd
	for k := 0; k < l.d; k++ {
		psi := in.acc2[k] / nr
		if !finite(psi) {
			nonFinite = true
		}
		in.colMu[k] = 0
		in.colA[k] = 1 / math.Sqrt(psi+l.cfg.Eps)
		l.runPsi2[k] = alpha*l.runPsi2[k] + (1-alpha)*psi
	}
	return nonFinite
}

// colRunningStats sets μ and 1/D from the running statistics, for
// inference (and a batch without a real row).
func colRunningStats(in *instance) {
	l := in.l
	eps := l.cfg.Eps
	for k := 0; k < l.d; k++ {
		if l.cfg.Kind == normspec.BatchNorm {
			in.colMu[k] = l.runMean[k]
			in.colA[k] = 1 / math.Sqrt(l.runVar[k]+eps)
		} else {
			in.colMu[k] = 0
			in.colA[k] = 1 / math.Sqrt(l.runPsi2[k]+eps)
		}
	}
}

// constantColumn reports whether feature k (after GroupScaling) has the same
// value in every real row, and that value.
func constantColumn[T float](in *instance, x []T, k int) (float64, bool) {
	d := in.l.d
	_, m := in.layout()
	first, have := 0.0, false
	for i := 0; i < in.n; i++ {
		if !in.real(i) {
			continue
		}
		v := float64(x[i*d+k]) * in.scale(i, k/m)
		if !have {
			first, have = v, true
		} else if v != first {
			return 0, false
		}
	}
	return first, have
}

// colBackward: dx_i = ĝ_i/D + g_μ + g_σ²,i with g_μ = -S1/(n·D) (BatchNorm
// only) and g_σ²,i = -x̂_i⊙S2/(n·D) (§2); padded rows get dx = 0. Without
// batch statistics (inference, or no real row) the statistics are
// constants and dx = ĝ/D.
func colBackward[T float](in *instance, x, gam, g, dx []T) {
	l := in.l
	d := l.d
	in.gam64 = toF64s(in.gam64, gam[:d])
	zero(in.dgamma[:d])
	zero(in.dbeta[:d])
	cmu, cvar := in.acc3[:d], in.acc4[:d]
	zero(cmu)
	zero(cvar)
	nonFinite := false
	if in.statPath {
		nonFinite = colStatGrads(in, x, g)
	}
	tap := in.training && in.tapGrad
	var gvarSum float64 // Σ‖g_σ²,i‖ (BatchNorm) or Σ‖g_ψ²,i‖ (PN-V)
	var mom momentSums
	if all := x[:in.n*d]; in.statPath && in.plainRows() && colMat(all, d) {
		// the whole batch in one call; the taps' per-row sums after it, in
		// row order
		var gvs []float64
		if tap {
			in.rowGv = grow(in.rowGv, in.n)
			gvs = in.rowGv
		}
		colGradOutMat(all, g[:in.n*d], d, in.gam64, in.colMu[:d], in.colA[:d], cmu, cvar, dx[:in.n*d], gvs)
		for i := range gvs {
			gvarSum += math.Sqrt(gvs[i])
		}
		if tap {
			var ok bool
			if mom, ok = momentsMat(dx[:in.n*d], g[:in.n*d], d); !ok {
				for i := 0; i < in.n; i++ {
					mom = mom.add(rowMoments2(dx[i*d:(i+1)*d], g[i*d:(i+1)*d]))
				}
			}
		}
	} else {
		for i := 0; i < in.n; i++ {
			xr, gr, dr := x[i*d:(i+1)*d], g[i*d:(i+1)*d], dx[i*d:(i+1)*d]
			if !in.real(i) {
				zeroT(dr)
				continue
			}
			gv := colGradRow(in, i, xr, gr, dr)
			if tap {
				gvarSum += math.Sqrt(gv)
				mom = mom.add(rowMoments2(dr, gr))
			}
		}
	}
	if !in.training {
		return
	}
	if nonFinite {
		l.taps.NonFinite = true
	}
	if tap && in.nReal > 0 {
		t := &l.taps
		nr := float64(in.nReal)
		mom.set(t, nr)
		if in.statPath {
			if l.cfg.Kind == normspec.BatchNorm {
				t.GMu = norm2(cmu)
				t.GVar = gvarSum / nr
			} else {
				t.GPsi2 = gvarSum / nr
			}
		}
	}
}

// colStatGrads is the backward's pass over the batch: dγ = Σg⊙x̂ and
// dβ = Σg per feature, and from them the statistics' terms, since
// S1 = Σĝ = γ⊙dβ and S2 = Σĝ⊙x̂ = γ⊙dγ: g_μ = -S1/(n·D) (BatchNorm only)
// into in.acc3 and S2/(n·D) into in.acc4 (g_σ²,i = -x̂_i⊙S2/(n·D)). It
// reports a non-finite dγ or dβ.
func colStatGrads[T float](in *instance, x, g []T) (nonFinite bool) {
	d := in.l.d
	mu, a, g64 := in.colMu[:d], in.colA[:d], in.gam64
	dgam, dbet := in.dgamma[:d], in.dbeta[:d]
	cmu, cvar := in.acc3[:d], in.acc4[:d]
	if all := x[:in.n*d]; in.plainRows() && colMat(all, d) {
		colParamGradsMat(all, g[:in.n*d], d, mu, a, dgam, dbet)
	} else if in.plainRows() {
		for off := 0; off < in.n*d; off += d {
			colParamGrads(x[off:off+d], g[off:off+d], 1, mu, a, dgam, dbet)
		}
	} else {
		forRealGroups(in, func(i, lo, hi int, sc float64) {
			xg, gg := x[i*d+lo:i*d+hi], g[i*d+lo:i*d+hi]
			colParamGrads(xg, gg, sc, mu[lo:hi], a[lo:hi], dgam[lo:hi], dbet[lo:hi])
		})
	}
	nr := float64(in.nReal)
	for k := 0; k < d; k++ {
		if !finite(dgam[k]) || !finite(dbet[k]) {
			nonFinite = true
		}
		gk := g64[k]
		if in.l.cfg.Kind == normspec.BatchNorm {
			cmu[k] = -gk * dbet[k] * a[k] / nr
		}
		cvar[k] = gk * dgam[k] * a[k] / nr
	}
	return nonFinite
}

// colGradRow writes dx of real row i: dx̃ = ĝ/D + g_μ + g_σ²,i with batch
// statistics (colGradOut), dx̃ = ĝ/D without them (accumulating dγ and dβ
// here), then GroupScaling's backward. It returns ‖g_σ²,i‖².
func colGradRow[T float](in *instance, i int, xr, gr, dr []T) (gv float64) {
	d := in.l.d
	G, m := in.layout()
	mu, a, g64 := in.colMu[:d], in.colA[:d], in.gam64
	cmu, cvar := in.acc3[:d], in.acc4[:d]
	rb := in.rowBuf[:d]
	for gi := 0; gi < G; gi++ {
		lo, hi := gi*m, (gi+1)*m
		sc := in.scale(i, gi)
		if in.statPath {
			gv += colGradOut(xr[lo:hi], gr[lo:hi], g64[lo:hi], sc, mu[lo:hi], a[lo:hi], cmu[lo:hi], cvar[lo:hi], rb[lo:hi])
		} else {
			colParamGrads(xr[lo:hi], gr[lo:hi], sc, mu[lo:hi], a[lo:hi], in.dgamma[lo:hi], in.dbeta[lo:hi])
			for k, v := range gr[lo:hi] {
				rb[lo+k] = g64[lo+k] * float64(v) * a[lo+k]
			}
		}
	}
	gsBackRow(in, i, xr, rb, dr)
	return gv
}

func norm2(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// Inner loops over one GroupScaling group of one row (the whole row
// without GroupScaling), on subslices of equal length so that the compiler
// drops the bounds checks.

func colAccum[T float](xg []T, sc float64, s1, s2 []float64) {
	s1, s2 = s1[:len(xg)], s2[:len(xg)]
	for k, v := range xg {
		xs := float64(v) * sc
		s1[k] += xs
		s2[k] += xs * xs
	}
}

func colAccumDev[T float](xg []T, sc float64, mean, vs []float64) {
	mean, vs = mean[:len(xg)], vs[:len(xg)]
	k0 := colAccumDevFast(xg, sc, mean, vs)
	xg, mean, vs = xg[k0:], mean[k0:], vs[k0:]
	mean, vs = mean[:len(xg)], vs[:len(xg)]
	for k, v := range xg {
		dv := float64(v)*sc - mean[k]
		vs[k] += dv * dv
	}
}

func colWrite[T float](xg []T, sc float64, mu, a, gam, bet []float64, yg []T) {
	n := len(xg)
	mu, a, gam, bet, yg = mu[:n], a[:n], gam[:n], bet[:n], yg[:n]
	k0 := colWriteFast(xg, sc, mu, a, gam, bet, yg)
	xg, mu, a, gam, bet, yg = xg[k0:], mu[k0:], a[k0:], gam[k0:], bet[k0:], yg[k0:]
	n = len(xg)
	mu, a, gam, bet, yg = mu[:n], a[:n], gam[:n], bet[:n], yg[:n]
	for k, v := range xg {
		yg[k] = T(gam[k]*((float64(v)*sc-mu[k])*a[k]) + bet[k])
	}
}

// colParamGrads adds g⊙x̂ and g to dgam and dbet.
func colParamGrads[T float](xg, gg []T, sc float64, mu, a, dgam, dbet []float64) {
	n := len(xg)
	gg, mu, a, dgam, dbet = gg[:n], mu[:n], a[:n], dgam[:n], dbet[:n]
	for k, v := range xg {
		xh := (float64(v)*sc - mu[k]) * a[k]
		gk := float64(gg[k])
		dgam[k] += gk * xh
		dbet[k] += gk
	}
}

// colGradOut writes dx̃ = ĝ/D + g_μ + g_σ² into rb and returns ‖g_σ²‖² of
// the group.
func colGradOut[T float](xg, gg []T, gam []float64, sc float64, mu, a, cmu, cvar, rb []float64) (gv float64) {
	n := len(xg)
	gg, gam, mu, a, cmu, cvar, rb = gg[:n], gam[:n], mu[:n], a[:n], cmu[:n], cvar[:n], rb[:n]
	for k, v := range xg {
		xh := (float64(v)*sc - mu[k]) * a[k]
		t := xh * cvar[k]
		rb[k] = gam[k]*float64(gg[k])*a[k] + cmu[k] - t
		gv += t * t
	}
	return gv
}
