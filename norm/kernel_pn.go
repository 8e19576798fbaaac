package norm

import "math"

// PowerNorm (NORMS.md §2, Shen et al. 2020): GroupScaling, then division by
// the quadratic mean, with the batch ψ_B during warmup and the running ψ²
// afterwards; the backward pass corrects with the EMA ν instead of
// differentiating through the statistic. Everything except the batch ψ_B²
// is row-local, so after warmup the forward is a single pass and the
// backward is always a single pass.

func pnForward[T float](in *instance, x, gam, bet, y []T) {
	l := in.l
	cfg := l.cfg
	d, G := l.d, l.groups
	m := d / G
	eps := cfg.Eps
	t := l.step
	in.statPath = in.training && in.nReal > 0
	batchDiv := in.statPath && t <= l.warmup // D_f = √(ψ_B²+ε)
	a := in.colA[:d]
	if !batchDiv {
		for k := range a {
			a[k] = 1 / math.Sqrt(l.runPsi2[k]+eps)
		}
	}
	in.gam64 = toF64s(in.gam64, gam[:d])
	in.bet64 = toF64s(in.bet64, bet[:d])
	g64, b64 := in.gam64, in.bet64
	s2 := in.acc1[:d]
	zero(s2)
	zeros := in.acc4[:d] // colAccumDev and colWrite subtract a mean; PowerNorm has none
	zero(zeros)
	nonFinite := false
	rowsFast := in.n > 0 && pnRowsFast(x[:d], m)
	for i := 0; i < in.n; i++ {
		xr := x[i*d : (i+1)*d]
		yr := y[i*d : (i+1)*d]
		real := in.real(i)
		if in.statPath && real && !batchDiv && rowsFast {
			ss := pnFwdRowFast(xr, m, eps, in.gsA[i*G:(i+1)*G], s2, a, g64, b64, yr)
			if !finite(ss) {
				nonFinite = true
			}
			continue
		}
		for gi := 0; gi < G; gi++ {
			blk := xr[gi*m : (gi+1)*m]
			ss := sumSqDev(blk, 0)
			if real && !finite(ss) {
				nonFinite = true
			}
			sc := 1 / math.Sqrt(ss/float64(m)+eps)
			in.gsA[i*G+gi] = sc
			lo := gi * m
			n := len(blk)
			acc, ag, gg, bg, yg := s2[lo:lo+n], a[lo:lo+n], g64[lo:lo+n], b64[lo:lo+n], yr[lo:lo+n]
			switch {
			case in.statPath && real && !batchDiv: // after warmup: one pass
				k0 := pnFwdFast(blk, sc, acc, ag, gg, bg, yg)
				blk, acc, ag, gg, bg, yg := blk[k0:], acc[k0:], ag[k0:], gg[k0:], bg[k0:], yg[k0:]
				acc, ag, gg, bg, yg = acc[:len(blk)], ag[:len(blk)], gg[:len(blk)], bg[:len(blk)], yg[:len(blk)]
				for k, v := range blk {
					xs := float64(v) * sc
					acc[k] += xs * xs
					yg[k] = T(gg[k]*(xs*ag[k]) + bg[k])
				}
			case in.statPath && real: // warmup: y waits for ψ_B
				colAccumDev(blk, sc, zeros[lo:lo+n], acc) // (x·sc - 0)² = (x·sc)²
			case !batchDiv:
				for k, v := range blk {
					yg[k] = T(gg[k]*(float64(v)*sc*ag[k]) + bg[k])
				}
			}
		}
	}
	ab := in.colAb[:d]
	if !in.statPath {
		copy(ab, a)
	} else {
		nr := float64(in.nReal)
		af := cfg.AlphaFwd
		ft := float64(t)
		for k := 0; k < d; k++ {
			psiB := s2[k] / nr
			in.colPsiB[k] = psiB
			if !finite(psiB) {
				nonFinite = true
			}
			if cfg.PaperBwd {
				ab[k] = 1 / math.Sqrt(l.runPsi2[k]+eps)
			} else {
				ab[k] = 1 / math.Sqrt(psiB+eps)
			}
			if batchDiv {
				a[k] = 1 / math.Sqrt(psiB+eps)
			}
			r := l.runPsi2[k]
			if t < l.warmup {
				r = r*(ft-1)/ft + psiB/ft
			}
			l.runPsi2[k] = af*r + (1-af)*psiB
		}
	}
	if batchDiv {
		for i := 0; i < in.n; i++ {
			xr := x[i*d : (i+1)*d]
			yr := y[i*d : (i+1)*d]
			for gi := 0; gi < G; gi++ {
				lo, hi := gi*m, (gi+1)*m
				colWrite(xr[lo:hi], in.gsA[i*G+gi], zeros[lo:hi], a[lo:hi], g64[lo:hi], b64[lo:hi], yr[lo:hi])
			}
		}
	}
	if nonFinite && in.training {
		l.taps.NonFinite = true
	}
}

// pnBackward: dx̃_i = (ĝ_i - ν_{t-1}⊙x̂_i)/D_b, then GroupScaling's backward;
// in training it accumulates Γ = mean x̂², Λ = mean ĝ⊙x̂ and updates ν.
func pnBackward[T float](in *instance, x, gam, g, dx []T) {
	l := in.l
	cfg := l.cfg
	d, G := l.d, l.groups
	m := d / G
	fm := float64(m)
	a, ab := in.colA[:d], in.colAb[:d]
	in.gam64 = toF64s(in.gam64, gam[:d])
	g64 := in.gam64
	nu := l.nu[:d]
	dgam, dbet := in.dgamma[:d], in.dbeta[:d]
	zero(dgam)
	zero(dbet)
	sp := in.statPath
	tap := in.training && in.tapGrad
	rb := in.rowBuf[:d]
	var gpsiSum, dxm, dxv, dym, dyv float64
	rowsFast := in.n > 0 && pnRowsFast(x[:d], m)
	// The fast path's per-feature factors (see pnBwdRow32AVX) and per-group
	// GroupScaling corrections.
	cs, w1, w2 := in.acc2[:G], in.acc3[:d], in.acc4[:d]
	if sp && rowsFast {
		for k := range w1 {
			w1[k] = g64[k] * ab[k]
			w2[k] = nu[k] * a[k] * ab[k]
		}
	}
	for i := 0; i < in.n; i++ {
		xr, gr, dr := x[i*d:(i+1)*d], g[i*d:(i+1)*d], dx[i*d:(i+1)*d]
		if !in.real(i) {
			for k := range dr {
				dr[k] = 0
			}
			continue
		}
		gp := 0.0
		if sp && rowsFast {
			pnBwdRowFast(xr, gr, m, in.gsA[i*G:(i+1)*G], cs, w1, w2, dgam, dbet, rb, dr)
			if tap {
				gp = pnGPsi2RowFast(xr, m, in.gsA[i*G:(i+1)*G], w2)
			}
		}
		for gi := 0; gi < G && !(sp && rowsFast); gi++ {
			sc := in.gsA[i*G+gi]
			lo, hi := gi*m, (gi+1)*m
			xg := xr[lo:hi]
			n := len(xg)
			gg, dg, ag, gmg := gr[lo:lo+n], dr[lo:lo+n], a[lo:lo+n], g64[lo:lo+n]
			dgm, dbt, rbg := dgam[lo:lo+n], dbet[lo:lo+n], rb[lo:lo+n]
			dot := 0.0
			if sp {
				nug, abg := nu[lo:lo+n], ab[lo:lo+n]
				dot = pnRowGroup(xg, gg, gmg, sc, ag, abg, nug, dgm, dbt, rbg)
				if tap {
					gp += pnGPsi2Group(xg, sc, nug, ag, abg)
				}
			} else {
				for k, v := range xg {
					xs := float64(v) * sc
					xh := xs * ag[k]
					gk := float64(gg[k])
					gh := float64(gmg[k]) * gk
					dgm[k] += gk * xh
					dbt[k] += gk
					dxs := gh * ag[k]
					rbg[k] = dxs
					dot += dxs * xs
				}
			}
			c := dot / fm
			k0 := pnDxFast(xg, rbg, sc, c, dg)
			xt, rt, dt := xg[k0:], rbg[k0:], dg[k0:]
			rt, dt = rt[:len(xt)], dt[:len(xt)]
			for k, v := range xt {
				dt[k] = T(sc * (rt[k] - float64(v)*sc*c))
			}
		}
		if tap {
			gpsiSum += math.Sqrt(gp)
			dm, dv, gm, gv := rowMoments2(dr, gr)
			dxm += dm
			dxv += dv
			dym += gm
			dyv += gv
		}
	}
	if sp && rowsFast {
		for k := range dgam { // the fast path collected Σg·xs
			dgam[k] *= a[k]
		}
	}
	if !in.training {
		return
	}
	t := &l.taps
	if sp {
		nr := float64(in.nReal)
		ob := 1 - cfg.AlphaBwd
		maxGamma := math.Inf(-1)
		for k := 0; k < d; k++ {
			// Γ = mean x̂² = ψ_B²/D_f² and Λ = mean ĝ⊙x̂ = γ⊙dγ/n: both
			// follow from sums the passes already make.
			gk := in.colPsiB[k] * a[k] * a[k]
			lk := g64[k] * dgam[k] / nr
			if !finite(lk) || !finite(dbet[k]) {
				t.NonFinite = true
			}
			if gk > maxGamma {
				maxGamma = gk
			}
			nu[k] = nu[k]*(1-ob*gk) + ob*lk
		}
		// Γ is per feature; the tap carries the largest, the one that
		// decides whether ν can grow without bound (Γ > 2/(1-α_b), §4).
		t.PNGamma = maxGamma
		t.NuNorm = norm2(nu)
		if tap {
			t.GPsi2 = gpsiSum / nr
			t.DxMean, t.DxVar, t.DyMean, t.DyVar = dxm/nr, dxv/nr, dym/nr, dyv/nr
		}
	} else if tap && in.nReal > 0 {
		nr := float64(in.nReal)
		t.DxMean, t.DxVar, t.DyMean, t.DyVar = dxm/nr, dxv/nr, dym/nr, dyv/nr
	}
}

// pnRowGroup is the training backward of one GroupScaling group of one row:
// it accumulates dγ and dβ, writes dx̃ = (ĝ - ν⊙x̂)/D_b into rb and returns
// Σ dx̃⊙x̃ for GroupScaling's backward. Two dot accumulators keep the add
// latency off the critical path.
func pnRowGroup[T float](xg, gg []T, gam []float64, sc float64, a, ab, nu, dgam, dbet, rb []float64) float64 {
	n := len(xg)
	gg, gam, a, ab, nu = gg[:n], gam[:n], a[:n], ab[:n], nu[:n]
	dgam, dbet, rb = dgam[:n], dbet[:n], rb[:n]
	k, dot0 := pnRowGroupFast(xg, gg, gam, sc, a, ab, nu, dgam, dbet, rb)
	var dot1 float64
	for ; k+2 <= n; k += 2 {
		xs0 := float64(xg[k]) * sc
		xs1 := float64(xg[k+1]) * sc
		xh0 := xs0 * a[k]
		xh1 := xs1 * a[k+1]
		g0 := float64(gg[k])
		g1 := float64(gg[k+1])
		dgam[k] += g0 * xh0
		dgam[k+1] += g1 * xh1
		dbet[k] += g0
		dbet[k+1] += g1
		d0 := (gam[k]*g0 - nu[k]*xh0) * ab[k]
		d1 := (gam[k+1]*g1 - nu[k+1]*xh1) * ab[k+1]
		rb[k] = d0
		rb[k+1] = d1
		dot0 += d0 * xs0
		dot1 += d1 * xs1
	}
	for ; k < n; k++ {
		xs0 := float64(xg[k]) * sc
		xh0 := xs0 * a[k]
		g0 := float64(gg[k])
		dgam[k] += g0 * xh0
		dbet[k] += g0
		d0 := (gam[k]*g0 - nu[k]*xh0) * ab[k]
		rb[k] = d0
		dot0 += d0 * xs0
	}
	return dot0 + dot1
}

// pnGPsi2Group is Σ(ν⊙x̂/D_b)² over one group (x̂ = x·sc·a).
func pnGPsi2Group[T float](xg []T, sc float64, nu, a, ab []float64) float64 {
	n := len(xg)
	nu, a, ab = nu[:n], a[:n], ab[:n]
	k0, gp := gpsiFast(xg, sc, nu, a, ab)
	xg, nu, a, ab = xg[k0:], nu[k0:], a[k0:], ab[k0:]
	nu, a, ab = nu[:len(xg)], a[:len(xg)], ab[:len(xg)]
	for k, v := range xg {
		c := nu[k] * float64(v) * sc * a[k] * ab[k]
		gp += c * c
	}
	return gp
}
