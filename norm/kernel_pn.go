package norm

import "math"

// PowerNorm (docs/math.md §2, Shen et al. 2020): GroupScaling, then division by
// the quadratic mean, with the batch ψ_B during warmup and the running ψ²
// afterwards; the backward pass corrects with the EMA ν instead of
// differentiating through the statistic. Everything except the batch ψ_B²
// is row-local, so after warmup the forward is a single pass and the
// backward is always a single pass.

// pnForward: y = γ⊙x̃/D_f + β with x̃ the GroupScaling output, in one pass
// over the rows after warmup (pnScaleRows writes y as it goes) and two
// during it (y waits for the batch's ψ_B, pnBatchStats, pnWriteRows).
func pnForward[T float](in *instance, x, gam, bet, y []T) {
	l := in.l
	d := l.d
	in.statPath = in.training && in.nReal > 0
	batchDiv := in.statPath && l.step <= l.warmup // D_f = √(ψ_B²+ε)
	a := in.colA[:d]
	if !batchDiv {
		for k := range a {
			a[k] = 1 / math.Sqrt(l.runPsi2[k]+l.cfg.Eps)
		}
	}
	in.gam64 = toF64s(in.gam64, gam[:d])
	in.bet64 = toF64s(in.bet64, bet[:d])
	zero(in.acc1[:d]) // the batch's Σ(x·sc)² per feature
	zero(in.acc4[:d]) // the mean colAccumDev and colWrite subtract: PowerNorm has none
	nonFinite := pnScaleRows(in, x, y, batchDiv)
	if !in.statPath {
		copy(in.colAb[:d], a)
	} else if pnBatchStats(in, batchDiv) {
		nonFinite = true
	}
	if batchDiv {
		pnWriteRows(in, x, y)
	}
	if nonFinite && in.training {
		l.taps.NonFinite = true
	}
}

// pnScaleRows is the pass over the rows: GroupScaling's scale
// sc = 1/√(mean_group(x²)+ε) of each row's groups into in.gsA, in training
// the batch's Σ(x·sc)² per feature of the real rows into in.acc1, and y
// wherever its divisor is known already (after warmup, and in inference).
// It reports a non-finite sum over a real row.
func pnScaleRows[T float](in *instance, x, y []T, batchDiv bool) (nonFinite bool) {
	l := in.l
	d, G := l.d, l.groups
	m := d / G
	rowsFast := in.n > 0 && pnRowsFast(x[:d], m)
	for i := 0; i < in.n; i++ {
		xr := x[i*d : (i+1)*d]
		yr := y[i*d : (i+1)*d]
		real := in.real(i)
		if in.statPath && real && !batchDiv && rowsFast {
			ss := pnFwdRowFast(xr, m, l.cfg.Eps, in.gsA[i*G:(i+1)*G], in.acc1[:d], in.colA[:d], in.gam64, in.bet64, yr)
			if !finite(ss) {
				nonFinite = true
			}
			continue
		}
		if pnScaleRow(in, xr, yr, i, m, real, batchDiv) {
			nonFinite = true
		}
	}
	return nonFinite
}

// pnScaleRow is pnScaleRows on row i, group by group (m features each);
// it reports a non-finite Σx² of a real row's group.
func pnScaleRow[T float](in *instance, xr, yr []T, i, m int, real, batchDiv bool) (nonFinite bool) {
	l := in.l
	d, G := l.d, l.groups
	eps := l.cfg.Eps
	s2, a, g64, b64 := in.acc1[:d], in.colA[:d], in.gam64, in.bet64
	zeros := in.acc4[:d] // colAccumDev subtracts a mean; PowerNorm has none
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
	return nonFinite
}

// pnBatchStats turns the batch's Σ(x·sc)² into ψ_B² = mean over the real
// rows (in.colPsiB), sets the backward's 1/D_b, D_b = √(ψ_B²+ε) (code) or
// √(ψ²_{t-1}+ε) (paper), and during warmup the forward's 1/D_f with
// D_f = √(ψ_B²+ε), then updates the running ψ²: a cumulative average while
// t < W, folded into the EMA ψ² ← α_f·ψ² + (1-α_f)·ψ_B². It reports a
// non-finite ψ_B².
func pnBatchStats(in *instance, batchDiv bool) (nonFinite bool) {
	l := in.l
	cfg := l.cfg
	eps := cfg.Eps
	s2, a, ab := in.acc1[:l.d], in.colA[:l.d], in.colAb[:l.d]
	nr := float64(in.nReal)
	af := cfg.AlphaFwd
	t := l.step
	ft := float64(t)
	for k := range s2 {
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
	return nonFinite
}

// pnWriteRows writes y = γ⊙(x·sc)/D_f + β during warmup, once ψ_B is known.
func pnWriteRows[T float](in *instance, x, y []T) {
	l := in.l
	d, G := l.d, l.groups
	m := d / G
	a, zeros, g64, b64 := in.colA[:d], in.acc4[:d], in.gam64, in.bet64
	for i := 0; i < in.n; i++ {
		xr := x[i*d : (i+1)*d]
		yr := y[i*d : (i+1)*d]
		for gi := 0; gi < G; gi++ {
			lo, hi := gi*m, (gi+1)*m
			colWrite(xr[lo:hi], in.gsA[i*G+gi], zeros[lo:hi], a[lo:hi], g64[lo:hi], b64[lo:hi], yr[lo:hi])
		}
	}
}

// pnBackward: dx̃_i = (ĝ_i - ν_{t-1}⊙x̂_i)/D_b, then GroupScaling's backward
// dx = sc·(dx̃ - x̃·mean_group(dx̃⊙x̃)), row by row (pnRowBackward, or
// pnBwdRowFast); in training it then updates ν (pnUpdateNu).
func pnBackward[T float](in *instance, x, gam, g, dx []T) {
	l := in.l
	d, G := l.d, l.groups
	m := d / G
	in.gam64 = toF64s(in.gam64, gam[:d])
	dgam, dbet := in.dgamma[:d], in.dbeta[:d]
	zero(dgam)
	zero(dbet)
	sp := in.statPath
	tap := in.training && in.tapGrad
	rowsFast := sp && in.n > 0 && pnRowsFast(x[:d], m)
	// The fast path's per-feature factors (see pnBwdRow32AVX) and per-group
	// GroupScaling corrections.
	cs, w1, w2 := in.acc2[:G], in.acc3[:d], in.acc4[:d]
	if rowsFast {
		for k := range w1 {
			w1[k] = in.gam64[k] * in.colAb[k]
			w2[k] = l.nu[k] * in.colA[k] * in.colAb[k]
		}
	}
	var gpsiSum float64
	var mom momentSums
	for i := 0; i < in.n; i++ {
		xr, gr, dr := x[i*d:(i+1)*d], g[i*d:(i+1)*d], dx[i*d:(i+1)*d]
		if !in.real(i) {
			zeroT(dr)
			continue
		}
		gp := 0.0 // ‖g_ψ²,i‖², when tap
		if rowsFast {
			pnBwdRowFast(xr, gr, m, in.gsA[i*G:(i+1)*G], cs, w1, w2, dgam, dbet, in.rowBuf[:d], dr)
			if tap {
				gp = pnGPsi2RowFast(xr, m, in.gsA[i*G:(i+1)*G], w2)
			}
		} else {
			gp = pnRowBackward(in, xr, gr, dr, i, m, tap)
		}
		if tap {
			gpsiSum += math.Sqrt(gp)
			mom = mom.add(rowMoments2(dr, gr))
		}
	}
	if rowsFast {
		a := in.colA[:d]
		for k := range dgam { // the fast path collected Σg·xs
			dgam[k] *= a[k]
		}
	}
	if !in.training {
		return
	}
	t := &l.taps
	if sp {
		pnUpdateNu(in)
	}
	if tap && in.nReal > 0 {
		nr := float64(in.nReal)
		if sp {
			t.GPsi2 = gpsiSum / nr
		}
		mom.set(t, nr)
	}
}

// pnRowBackward writes dx of real row i, group by group (m features each),
// and accumulates its dγ, dβ: dx̃ = (ĝ - ν⊙x̂)/D_b in training
// (pnRowGroup), ĝ/D with the running divisor otherwise, then
// dx = sc·(dx̃ - x̃·c) with c = mean_group(dx̃⊙x̃). It returns the row's
// Σ(ν⊙x̂/D_b)² when tap holds in training, else 0.
func pnRowBackward[T float](in *instance, xr, gr, dr []T, i, m int, tap bool) (gp float64) {
	l := in.l
	d, G := l.d, l.groups
	fm := float64(m)
	a, ab, g64, nu := in.colA[:d], in.colAb[:d], in.gam64, l.nu[:d]
	dgam, dbet, rb := in.dgamma[:d], in.dbeta[:d], in.rowBuf[:d]
	for gi := 0; gi < G; gi++ {
		sc := in.gsA[i*G+gi]
		lo, hi := gi*m, (gi+1)*m
		xg := xr[lo:hi]
		n := len(xg)
		gg, dg, ag, gmg := gr[lo:lo+n], dr[lo:lo+n], a[lo:lo+n], g64[lo:lo+n]
		dgm, dbt, rbg := dgam[lo:lo+n], dbet[lo:lo+n], rb[lo:lo+n]
		dot := 0.0
		if in.statPath {
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
	return gp
}

// pnUpdateNu updates the backward's EMA ν ← ν⊙(1 - (1-α_b)·Γ) + (1-α_b)·Λ
// after a training backward, with Γ = mean x̂² = ψ_B²/D_f² and
// Λ = mean ĝ⊙x̂ = γ⊙dγ/n per feature (both follow from sums the passes
// already make), and records the PNGamma and NuNorm taps.
func pnUpdateNu(in *instance) {
	l := in.l
	t := &l.taps
	d := l.d
	a, nu, g64, dgam, dbet := in.colA[:d], l.nu[:d], in.gam64, in.dgamma[:d], in.dbeta[:d]
	nr := float64(in.nReal)
	ob := 1 - l.cfg.AlphaBwd
	maxGamma := math.Inf(-1)
	for k := 0; k < d; k++ {
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
	// Γ is per feature; the tap carries the largest, the one that decides
	// whether ν can grow without bound (Γ > 2/(1-α_b), §4).
	t.PNGamma = maxGamma
	t.NuNorm = norm2(nu)
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
