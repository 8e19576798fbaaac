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
	gam, bet = gam[:d], bet[:d]
	s2 := in.acc1[:d]
	zero(s2)
	nonFinite := false
	for i := 0; i < in.n; i++ {
		xr := x[i*d : (i+1)*d]
		yr := y[i*d : (i+1)*d]
		real := in.real(i)
		for gi := 0; gi < G; gi++ {
			blk := xr[gi*m : (gi+1)*m]
			ss := 0.0
			for _, v := range blk {
				f := float64(v)
				ss += f * f
			}
			if real && !finite(ss) {
				nonFinite = true
			}
			sc := 1 / math.Sqrt(ss/float64(m)+eps)
			in.gsA[i*G+gi] = sc
			lo := gi * m
			if in.statPath && real {
				acc := s2[lo : lo+m]
				for k, v := range blk {
					xs := float64(v) * sc
					acc[k] += xs * xs
				}
			}
			if !batchDiv {
				ag, gg, bg, yg := a[lo:lo+m], gam[lo:lo+m], bet[lo:lo+m], yr[lo:lo+m]
				for k, v := range blk {
					yg[k] = T(float64(gg[k])*(float64(v)*sc*ag[k]) + float64(bg[k]))
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
				sc := in.gsA[i*G+gi]
				for k := gi * m; k < (gi+1)*m; k++ {
					yr[k] = T(float64(gam[k])*(float64(xr[k])*sc*a[k]) + float64(bet[k]))
				}
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
	gam = gam[:d]
	nu := l.nu[:d]
	dgam, dbet := in.dgamma[:d], in.dbeta[:d]
	zero(dgam)
	zero(dbet)
	gamAcc, lamAcc := in.acc2[:d], in.acc3[:d]
	zero(gamAcc)
	zero(lamAcc)
	sp := in.statPath
	tap := in.training && in.tapGrad
	rb := in.rowBuf[:d]
	var gpsiSum, dxm, dxv, dym, dyv float64
	for i := 0; i < in.n; i++ {
		xr, gr, dr := x[i*d:(i+1)*d], g[i*d:(i+1)*d], dx[i*d:(i+1)*d]
		if !in.real(i) {
			for k := range dr {
				dr[k] = 0
			}
			continue
		}
		gp := 0.0
		for gi := 0; gi < G; gi++ {
			sc := in.gsA[i*G+gi]
			lo, hi := gi*m, (gi+1)*m
			dot := 0.0
			for k := lo; k < hi; k++ {
				xs := float64(xr[k]) * sc
				xh := xs * a[k]
				gk := float64(gr[k])
				gh := float64(gam[k]) * gk
				dgam[k] += gk * xh
				dbet[k] += gk
				var dxs float64
				if sp {
					gamAcc[k] += xh * xh
					lamAcc[k] += gh * xh
					c := nu[k] * xh
					gp += c * c * ab[k] * ab[k]
					dxs = (gh - c) * ab[k]
				} else {
					dxs = gh * a[k]
				}
				rb[k] = dxs
				dot += dxs * xs
			}
			c := dot / fm
			for k := lo; k < hi; k++ {
				dr[k] = T(sc * (rb[k] - float64(xr[k])*sc*c))
			}
		}
		if tap {
			gpsiSum += math.Sqrt(gp)
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
	t := &l.taps
	if sp {
		nr := float64(in.nReal)
		ob := 1 - cfg.AlphaBwd
		maxGamma := math.Inf(-1)
		for k := 0; k < d; k++ {
			gk := gamAcc[k] / nr
			lk := lamAcc[k] / nr
			if !finite(lk) {
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
