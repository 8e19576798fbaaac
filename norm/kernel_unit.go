package norm

import "math"

// The norm zoo's kernels (docs/math.md §8): LayerNorm's statistics and
// backward over each normalization unit (unit.go) instead of each row. A
// sample's rows are consecutive, so the kernels walk them row by row,
// accumulating per feature, and fold the features into groups; that keeps
// the reads sequential whichever way the unit is shaped (instancenorm's is
// one feature down the rows, groupnorm's on an image a block of channels
// down them). Where a unit is part of one row (groupnorm on token rows),
// kernel_unit_row.go runs layernorm's row kernels instead.
//
// Padded rows are left out of every statistic, normalised with their unit's
// statistics and given dx = 0. A sample whose rows are all padding is
// normalised over all its rows (as layernorm normalises a padded row: a
// finite output nothing reads) and contributes no tap, dγ, dβ or dx.

func unitForward[T float](in *instance, x, gam, bet, y []T) {
	l := in.l
	in.statPath = in.training || l.runMean == nil
	if !in.statPath {
		unitInferForward(in, x, gam, bet, y)
		return
	}
	d, R, G := l.d, l.unitRows, l.unitGroups
	m := d / G
	in.gam64 = toF64s(in.gam64, gam)
	in.bet64 = toF64s(in.bet64, bet)
	g64, b64 := in.gam64[:d], in.bet64[:d]
	muF, aF := in.unitMuF[:d], in.unitAF[:d] // the unit's μ and 1/D at each feature
	track := in.training && l.runMean != nil // instancenorm:running=1
	run := unitRunning{sumMu: in.acc3[:d], sumVar: in.acc4[:d]}
	if track {
		zero(run.sumMu)
		zero(run.sumVar)
	}
	nonFinite := false
	for s := 0; s < in.n/R; s++ {
		lo, hi := s*R, (s+1)*R
		nr := 0
		for i := lo; i < hi; i++ {
			if in.real(i) {
				nr++
			}
		}
		in.unitReal[s] = nr
		all := nr == 0
		nu := float64(nr * m)
		if all {
			nu = float64(R * m)
		}
		if unitStats(in, x, s, all, nu) && !all {
			nonFinite = true
		}
		mu, a, ss := in.unitMu[s*G:(s+1)*G], in.unitA[s*G:(s+1)*G], in.unitSS[s*G:(s+1)*G]
		perFeature(muF, mu, m)
		perFeature(aF, a, m)
		if track && !all {
			run.add(mu, ss, nu, m)
		}
		for i := lo; i < hi; i++ {
			colWrite(x[i*d:(i+1)*d], 1, muF, aF, g64, b64, y[i*d:(i+1)*d])
		}
	}
	if track {
		run.update(l)
	}
	if nonFinite && in.training {
		l.taps.NonFinite = true
	}
}

// unitStats computes sample s's unit statistics (μ, 1/D, Σ(x−μ)² into
// in.unitMu, unitA, unitSS) over its real rows (all its rows when all),
// nu values per unit, in two passes; it reports a non-finite variance.
func unitStats[T float](in *instance, x []T, s int, all bool, nu float64) (nonFinite bool) {
	l := in.l
	d, R, G := l.d, l.unitRows, l.unitGroups
	m := d / G
	lo, hi := s*R, (s+1)*R
	colSum, colDev, muF := in.acc1[:d], in.acc2[:d], in.unitMuF[:d]
	mu, a, ss := in.unitMu[s*G:(s+1)*G], in.unitA[s*G:(s+1)*G], in.unitSS[s*G:(s+1)*G]
	zero(colSum)
	for i := lo; i < hi; i++ {
		if all || in.real(i) {
			addRow(colSum, x[i*d:(i+1)*d])
		}
	}
	for gi := range mu {
		mu[gi] = sumOf(colSum[gi*m:(gi+1)*m]) / nu
	}
	perFeature(muF, mu, m)
	zero(colDev)
	for i := lo; i < hi; i++ {
		if all || in.real(i) {
			colAccumDev(x[i*d:(i+1)*d], 1, muF, colDev)
		}
	}
	for gi := range mu {
		v := sumOf(colDev[gi*m : (gi+1)*m])
		if !finite(v) {
			nonFinite = true
		}
		// A constant unit must give x̂ = 0 exactly (§4), but μ can
		// differ from the constant by rounding.
		if v <= 1e-20*mu[gi]*mu[gi]*nu {
			if c, ok := constantUnit(in, x, lo, hi, all, gi*m, (gi+1)*m); ok {
				mu[gi], v = c, 0
			}
		}
		ss[gi] = v
		a[gi] = 1 / math.Sqrt(v/nu+l.cfg.Eps)
	}
	return nonFinite
}

// perFeature spreads per-group values over the m features of each group.
func perFeature(dst, perGroup []float64, m int) {
	for gi, v := range perGroup {
		g := dst[gi*m : (gi+1)*m]
		for k := range g {
			g[k] = v
		}
	}
}

// unitBackward is layernorm's backward over each unit U with n_U real
// elements: dx = (1/D)[ĝ - mean_U(ĝ) - x̂·mean_U(ĝ⊙x̂)], ĝ = γ⊙g.
func unitBackward[T float](in *instance, x, gam, g, dx []T) {
	if !in.statPath {
		unitInferBackward(in, x, gam, g, dx)
		return
	}
	l := in.l
	d, R, G := l.d, l.unitRows, l.unitGroups
	m := d / G
	in.gam64 = toF64s(in.gam64, gam)
	g64 := in.gam64[:d]
	dgam, dbet := in.dgamma[:d], in.dbeta[:d]
	zero(dgam)
	zero(dbet)
	s1, s2 := in.acc1[:d], in.acc2[:d] // per feature of one sample: Σĝ, Σĝ⊙x̂
	c1, c2 := in.acc3[:d], in.acc4[:d] // per feature: its unit's mean_U(ĝ), mean_U(ĝ⊙x̂)
	muF, aF := in.unitMuF[:d], in.unitAF[:d]
	tap := in.training && in.tapGrad
	var sums unitTapSums
	nonFinite := false
	for s := 0; s < in.n/R; s++ {
		lo, hi := s*R, (s+1)*R
		nr := in.unitReal[s]
		if nr == 0 {
			zeroT(dx[lo*d : hi*d])
			continue
		}
		mu, a, ss := in.unitMu[s*G:(s+1)*G], in.unitA[s*G:(s+1)*G], in.unitSS[s*G:(s+1)*G]
		perFeature(muF, mu, m)
		perFeature(aF, a, m)
		zero(s1)
		zero(s2)
		for i := lo; i < hi; i++ {
			if in.real(i) {
				unitGradSums(x[i*d:(i+1)*d], g[i*d:(i+1)*d], g64, muF, aF, dgam, dbet, s1, s2)
			}
		}
		nu := float64(nr * m)
		for gi := 0; gi < G; gi++ {
			S1, S2 := sumOf(s1[gi*m:(gi+1)*m]), sumOf(s2[gi*m:(gi+1)*m])
			if !finite(S1) || !finite(S2) {
				nonFinite = true
			}
			c1[gi*m], c2[gi*m] = S1/nu, S2/nu
			if tap {
				// §5 per unit, as layernorm's per row with n_U for d:
				// ‖g_μ‖ = |S1|·√n_U/(n_U·D), ‖g_σ²‖ = ‖x̂_U‖·|S2|/(n_U·D).
				sums.gmu += math.Abs(S1) * a[gi] / math.Sqrt(nu)
				sums.gvar += math.Sqrt(ss[gi]) * a[gi] * math.Abs(S2) * a[gi] / nu
			}
		}
		for gi := 0; gi < G; gi++ {
			c1g, c2g := c1[gi*m:(gi+1)*m], c2[gi*m:(gi+1)*m]
			for k := range c1g {
				c1g[k], c2g[k] = c1g[0], c2g[0]
			}
		}
		for i := lo; i < hi; i++ {
			if !in.real(i) {
				zeroT(dx[i*d : (i+1)*d])
				continue
			}
			unitDx(x[i*d:(i+1)*d], g[i*d:(i+1)*d], g64, muF, aF, c1, c2, dx[i*d:(i+1)*d])
		}
		if tap {
			unitMoments(in, dx, g, s, &sums)
		}
	}
	if in.training {
		l.setUnitTaps(nonFinite, tap, &sums)
	}
}

// setUnitTaps records a training backward's gradient taps: the sums over
// the units that hold a real row, averaged, and whether a value was not
// finite.
func (l *Layer) setUnitTaps(nonFinite, tap bool, sums *unitTapSums) {
	if nonFinite {
		l.taps.NonFinite = true
	}
	if tap && sums.units > 0 {
		u := float64(sums.units)
		t := &l.taps
		t.GMu, t.GVar = sums.gmu/u, sums.gvar/u
		t.DxMean, t.DxVar, t.DyMean, t.DyVar = sums.dxm/u, sums.dxv/u, sums.dym/u, sums.dyv/u
	}
}

// unitTapSums adds up the gradient taps over the units that hold a real row.
type unitTapSums struct {
	units                         int
	gmu, gvar, dxm, dxv, dym, dyv float64
}

// unitMoments adds the Theorem-1 moments of sample s's units (mean and
// variance of dx and of g over each unit's real elements, two passes) to
// sums. It runs after the sample's dx is written, so it may reuse the
// scratch of unitBackward.
func unitMoments[T float](in *instance, dx, g []T, s int, sums *unitTapSums) {
	l := in.l
	d, R, G := l.d, l.unitRows, l.unitGroups
	m := d / G
	lo, hi := s*R, (s+1)*R
	nu := float64(in.unitReal[s] * m)
	sd, sg := in.acc1[:d], in.acc2[:d]
	md, mg := in.acc3[:G], in.acc4[:G] // per group, then spread per feature
	mdF, mgF := in.unitMuF[:d], in.unitAF[:d]
	zero(sd)
	zero(sg)
	for i := lo; i < hi; i++ {
		if in.real(i) {
			addRow(sd, dx[i*d:(i+1)*d])
			addRow(sg, g[i*d:(i+1)*d])
		}
	}
	for gi := 0; gi < G; gi++ {
		md[gi] = sumOf(sd[gi*m:(gi+1)*m]) / nu
		mg[gi] = sumOf(sg[gi*m:(gi+1)*m]) / nu
	}
	perFeature(mdF, md, m)
	perFeature(mgF, mg, m)
	zero(sd)
	zero(sg)
	for i := lo; i < hi; i++ {
		if in.real(i) {
			colAccumDev(dx[i*d:(i+1)*d], 1, mdF, sd)
			colAccumDev(g[i*d:(i+1)*d], 1, mgF, sg)
		}
	}
	for gi := 0; gi < G; gi++ {
		sums.dxm += md[gi]
		sums.dym += mg[gi]
		sums.dxv += sumOf(sd[gi*m:(gi+1)*m]) / nu
		sums.dyv += sumOf(sg[gi*m:(gi+1)*m]) / nu
	}
	sums.units += G
}

// constantUnit reports whether features [k0, k1) hold one value in every
// row of [lo, hi) that the statistics use, and that value.
func constantUnit[T float](in *instance, x []T, lo, hi int, all bool, k0, k1 int) (float64, bool) {
	d := in.l.d
	first, have := 0.0, false
	for i := lo; i < hi; i++ {
		if !all && !in.real(i) {
			continue
		}
		for _, v := range x[i*d+k0 : i*d+k1] {
			if !have {
				first, have = float64(v), true
			} else if float64(v) != first {
				return 0, false
			}
		}
	}
	return first, have
}

// Inner loops over one row, with each unit's statistics spread over its
// features (perFeature), on subslices of equal length so that the compiler
// drops the bounds checks; the forward reuses the per-feature kernels
// (colAccumDev, colWrite) and their assembly.

func addRow[T float](acc []float64, xr []T) {
	acc = acc[:len(xr)]
	for k, v := range xr {
		acc[k] += float64(v)
	}
}

// unitGradSums adds g⊙x̂ and g to dγ, dβ and ĝ, ĝ⊙x̂ to s1, s2 for one row,
// x̂ = (x - μ)·a with its unit's μ and a at each feature.
func unitGradSums[T float](xr, gr []T, gam, mu, a, dgam, dbet, s1, s2 []float64) {
	n := len(xr)
	gr, gam, mu, a, dgam, dbet, s1, s2 = gr[:n], gam[:n], mu[:n], a[:n], dgam[:n], dbet[:n], s1[:n], s2[:n]
	for k, v := range xr {
		xh := (float64(v) - mu[k]) * a[k]
		q := float64(gr[k])
		dgam[k] += q * xh
		dbet[k] += q
		q *= gam[k]
		s1[k] += q
		s2[k] += q * xh
	}
}

// unitDx writes one row of dx = a·(ĝ - c1 - x̂·c2).
func unitDx[T float](xr, gr []T, gam, mu, a, c1, c2 []float64, dr []T) {
	n := len(xr)
	gr, gam, mu, a, c1, c2, dr = gr[:n], gam[:n], mu[:n], a[:n], c1[:n], c2[:n], dr[:n]
	for k, v := range xr {
		xh := (float64(v) - mu[k]) * a[k]
		dr[k] = T(a[k] * (gam[k]*float64(gr[k]) - c1[k] - xh*c2[k]))
	}
}

func zeroT[T float](s []T) {
	for i := range s {
		s[i] = 0
	}
}
