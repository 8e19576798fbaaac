package norm

import (
	"github.com/normtop/normtop/normspec"
	"math"
)

// Per-feature family (NORMS.md §2): BatchNorm and PN-V take statistics over
// the real rows of each feature, optionally after GroupScaling (BatchNorm's
// groups option). The batch statistics need a pass over the whole batch
// before any output can be written.

func colForward[T float](in *instance, x, gam, bet, y []T) {
	l := in.l
	cfg := l.cfg
	d := l.d
	eps := cfg.Eps
	G, m := in.layout()
	nonFinite := false
	if l.groups > 0 {
		nonFinite = gsScales(in, x)
	}
	in.statPath = in.training && in.nReal > 0
	if in.statPath {
		nr := float64(in.nReal)
		s1, s2 := in.acc1, in.acc2
		zero(s1)
		zero(s2)
		for i := 0; i < in.n; i++ {
			if !in.real(i) {
				continue
			}
			xr := x[i*d : (i+1)*d]
			for gi := 0; gi < G; gi++ {
				lo, hi := gi*m, (gi+1)*m
				colAccum(xr[lo:hi], in.scale(i, gi), s1[lo:hi], s2[lo:hi])
			}
		}
		if cfg.Kind == normspec.BatchNorm {
			mean, vs := s1, in.acc3
			for k := range mean {
				mean[k] /= nr
			}
			zero(vs)
			for i := 0; i < in.n; i++ {
				if !in.real(i) {
					continue
				}
				xr := x[i*d : (i+1)*d]
				for gi := 0; gi < G; gi++ {
					lo, hi := gi*m, (gi+1)*m
					colAccumDev(xr[lo:hi], in.scale(i, gi), mean[lo:hi], vs[lo:hi])
				}
			}
			mom := cfg.Momentum
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
				in.colA[k] = 1 / math.Sqrt(v+eps)
				l.runMean[k] = (1-mom)*l.runMean[k] + mom*mean[k]
				if in.nReal > 1 {
					l.runVar[k] = (1-mom)*l.runVar[k] + mom*v*nr/(nr-1)
				}
			}
		} else { // PN-V
			alpha := cfg.AlphaFwd
			for k := 0; k < d; k++ {
				psi := s2[k] / nr
				if !finite(psi) {
					nonFinite = true
				}
				in.colMu[k] = 0
				in.colA[k] = 1 / math.Sqrt(psi+eps)
				l.runPsi2[k] = alpha*l.runPsi2[k] + (1-alpha)*psi
			}
		}
	} else {
		for k := 0; k < d; k++ {
			if cfg.Kind == normspec.BatchNorm {
				in.colMu[k] = l.runMean[k]
				in.colA[k] = 1 / math.Sqrt(l.runVar[k]+eps)
			} else {
				in.colMu[k] = 0
				in.colA[k] = 1 / math.Sqrt(l.runPsi2[k]+eps)
			}
		}
	}
	mu, a := in.colMu[:d], in.colA[:d]
	in.gam64 = toF64s(in.gam64, gam[:d])
	in.bet64 = toF64s(in.bet64, bet[:d])
	g64, b64 := in.gam64, in.bet64
	for i := 0; i < in.n; i++ {
		xr := x[i*d : (i+1)*d]
		yr := y[i*d : (i+1)*d]
		for gi := 0; gi < G; gi++ {
			lo, hi := gi*m, (gi+1)*m
			colWrite(xr[lo:hi], in.scale(i, gi), mu[lo:hi], a[lo:hi], g64[lo:hi], b64[lo:hi], yr[lo:hi])
		}
	}
	if nonFinite && in.training {
		l.taps.NonFinite = true
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
	G, m := in.layout()
	mu, a := in.colMu[:d], in.colA[:d]
	in.gam64 = toF64s(in.gam64, gam[:d])
	g64 := in.gam64
	dgam, dbet := in.dgamma[:d], in.dbeta[:d]
	zero(dgam)
	zero(dbet)
	cmu, cvar := in.acc3[:d], in.acc4[:d]
	zero(cmu)
	zero(cvar)
	nonFinite := false
	nr := float64(in.nReal)
	if in.statPath {
		for i := 0; i < in.n; i++ {
			if !in.real(i) {
				continue
			}
			xr, gr := x[i*d:(i+1)*d], g[i*d:(i+1)*d]
			for gi := 0; gi < G; gi++ {
				lo, hi := gi*m, (gi+1)*m
				colParamGrads(xr[lo:hi], gr[lo:hi], in.scale(i, gi), mu[lo:hi], a[lo:hi], dgam[lo:hi], dbet[lo:hi])
			}
		}
		// S1 = Σĝ = γ⊙dβ and S2 = Σĝ⊙x̂ = γ⊙dγ, so one accumulation serves
		// both the parameter gradients and the statistic terms.
		for k := 0; k < d; k++ {
			if !finite(dgam[k]) || !finite(dbet[k]) {
				nonFinite = true
			}
			gk := g64[k]
			if l.cfg.Kind == normspec.BatchNorm {
				cmu[k] = -gk * dbet[k] * a[k] / nr
			}
			cvar[k] = gk * dgam[k] * a[k] / nr
		}
	}
	tap := in.training && in.tapGrad
	var gvarSum, dxm, dxv, dym, dyv float64
	rb := in.rowBuf[:d]
	for i := 0; i < in.n; i++ {
		xr, gr, dr := x[i*d:(i+1)*d], g[i*d:(i+1)*d], dx[i*d:(i+1)*d]
		if !in.real(i) {
			for k := range dr {
				dr[k] = 0
			}
			continue
		}
		gv := 0.0
		for gi := 0; gi < G; gi++ {
			lo, hi := gi*m, (gi+1)*m
			sc := in.scale(i, gi)
			if in.statPath {
				gv += colGradOut(xr[lo:hi], gr[lo:hi], g64[lo:hi], sc, mu[lo:hi], a[lo:hi], cmu[lo:hi], cvar[lo:hi], rb[lo:hi])
			} else {
				colParamGrads(xr[lo:hi], gr[lo:hi], sc, mu[lo:hi], a[lo:hi], dgam[lo:hi], dbet[lo:hi])
				for k, v := range gr[lo:hi] {
					rb[lo+k] = g64[lo+k] * float64(v) * a[lo+k]
				}
			}
		}
		gsBackRow(in, i, xr, rb, dr)
		if tap {
			gvarSum += math.Sqrt(gv)
			mm, vv := rowMoments(dr)
			dxm += mm
			dxv += vv
			mm, vv = rowMoments(gr)
			dym += mm
			dyv += vv
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
		t.DxMean, t.DxVar, t.DyMean, t.DyVar = dxm/nr, dxv/nr, dym/nr, dyv/nr
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
