package norm

import "math"

// groupnorm on token rows and fc layers (unitRows = 1): each unit is one
// row's block of m = d/G features, so the unit kernels are layernorm's row
// kernels (and their assembly) applied to each block, with the block's
// slice of γ and β. Same results as unitForward/unitBackward with R = 1;
// this path only skips their per-sample, per-feature bookkeeping.

func unitRowForward[T float](in *instance, x, gam, bet, y []T) {
	l := in.l
	d, G := l.d, l.unitGroups
	m := d / G
	fm := float64(m)
	eps := l.cfg.Eps
	in.gam64 = toF64s(in.gam64, gam)
	in.bet64 = toF64s(in.bet64, bet)
	nonFinite := false
	for i := 0; i < in.n; i++ {
		in.unitReal[i] = 0
		if in.real(i) {
			in.unitReal[i] = 1
		}
		for gi := 0; gi < G; gi++ {
			lo, hi := i*d+gi*m, i*d+(gi+1)*m
			xg, yg := x[lo:hi], y[lo:hi]
			gam, bet := in.gam64[gi*m:(gi+1)*m], in.bet64[gi*m:(gi+1)*m]
			mu := sumOf(xg) / fm
			ss := sumSqDev(xg, mu)
			if !finite(ss) && in.real(i) {
				nonFinite = true
			}
			if ss <= 1e-20*mu*mu*fm && constantRow(xg) { // x̂ = 0 exactly (§4)
				mu, ss = float64(xg[0]), 0
			}
			a := 1 / math.Sqrt(ss/fm+eps)
			u := i*G + gi
			in.unitMu[u], in.unitA[u], in.unitSS[u] = mu, a, ss
			k0 := lnWriteFast(xg, gam, bet, mu, a, yg)
			xt, gam, bet, yt := xg[k0:], gam[k0:], bet[k0:], yg[k0:]
			gam, bet, yt = gam[:len(xt)], bet[:len(xt)], yt[:len(xt)]
			for k, v := range xt {
				yt[k] = T(gam[k]*((float64(v)-mu)*a) + bet[k])
			}
		}
	}
	if nonFinite && in.training {
		l.taps.NonFinite = true
	}
}

func unitRowBackward[T float](in *instance, x, gam, g, dx []T) {
	l := in.l
	d, G := l.d, l.unitGroups
	m := d / G
	fm := float64(m)
	in.gam64 = toF64s(in.gam64, gam)
	dgam, dbet := in.dgamma[:d], in.dbeta[:d]
	zero(dgam)
	zero(dbet)
	tap := in.training && in.tapGrad
	var sums unitTapSums
	nonFinite := false
	for i := 0; i < in.n; i++ {
		if !in.real(i) {
			zeroT(dx[i*d : (i+1)*d])
			continue
		}
		for gi := 0; gi < G; gi++ {
			lo, hi := i*d+gi*m, i*d+(gi+1)*m
			xg, gg, dg := x[lo:hi], g[lo:hi], dx[lo:hi]
			gam := in.gam64[gi*m : (gi+1)*m]
			u := i*G + gi
			mu, a := in.unitMu[u], in.unitA[u]
			S1, S2 := gradSumsAffine(xg, gg, gam, mu, a, dgam[gi*m:(gi+1)*m], dbet[gi*m:(gi+1)*m])
			if !finite(S1) || !finite(S2) {
				nonFinite = true
			}
			// dx = a(ĝ - S1/m) - a²·S2/m·(x - μ): layernorm's, with m for d
			mg, bc := S1/fm, a*a*S2/fm
			k0 := lnDxFast(xg, gg, gam, mu, a, mg, bc, dg)
			xt, gt, gm, dt := xg[k0:], gg[k0:], gam[k0:], dg[k0:]
			gt, gm, dt = gt[:len(xt)], gm[:len(xt)], dt[:len(xt)]
			for k, v := range xt {
				dt[k] = T(a*(gm[k]*float64(gt[k])-mg) - bc*(float64(v)-mu))
			}
			if tap {
				sums.gmu += math.Abs(S1) * a / math.Sqrt(fm)
				sums.gvar += math.Sqrt(in.unitSS[u]) * a * math.Abs(S2) * a / fm
				dm, dv, ym, yv := rowMoments2(dg, gg)
				sums.dxm += dm
				sums.dxv += dv
				sums.dym += ym
				sums.dyv += yv
				sums.units++
			}
		}
	}
	if in.training {
		l.setUnitTaps(nonFinite, tap, &sums)
	}
}
