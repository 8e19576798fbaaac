package norm

import (
	"github.com/normtop/normtop/normspec"
	"math"
)

// Row family (NORMS.md §1): LayerNorm, its Xu et al. relatives and RMSNorm
// normalise each row over its d features, so a row is the unit of work and
// stays in cache across the passes over it.

// constantRow reports whether every entry equals the first; called only when
// the computed variance is small enough that rounding could hide a constant.
func constantRow[T float](xr []T) bool {
	for _, v := range xr {
		if v != xr[0] {
			return false
		}
	}
	return true
}

func rowForward[T float](in *instance, x, gam, bet, y []T) {
	l := in.l
	cfg := l.cfg
	d := l.d
	fd := float64(d)
	kind := cfg.Kind
	eps := cfg.Eps
	nonFinite := false
	var g64, b64 []float64
	if gam != nil {
		in.gam64 = toF64s(in.gam64, gam)
		in.bet64 = toF64s(in.bet64, bet)
		g64, b64 = in.gam64, in.bet64
	}
	for i := 0; i < in.n; i++ {
		xr := x[i*d : (i+1)*d]
		yr := y[i*d : (i+1)*d]
		if kind == normspec.RMSNorm {
			ss := sumSqDev(xr, 0)
			if !finite(ss) && in.real(i) {
				nonFinite = true
			}
			a := 1 / math.Sqrt(ss/fd+eps)
			in.rowMu[i], in.rowA[i], in.rowS[i], in.rowSS[i] = 0, a, 1/a, ss
			gam, bet, yr := g64[:len(xr)], b64[:len(xr)], yr[:len(xr)]
			for k, v := range xr {
				yr[k] = T(gam[k]*float64(v)*a + bet[k])
			}
			continue
		}
		mu := sumOf(xr) / fd
		ss := sumSqDev(xr, mu)
		if !finite(ss) && in.real(i) {
			nonFinite = true
		}
		// A constant row must give x̂ = 0 exactly (§4), but μ = Σx/d can
		// differ from the constant by rounding.
		if ss <= 1e-20*mu*mu*fd && constantRow(xr) {
			mu, ss = float64(xr[0]), 0
		}
		var s, D float64
		if cfg.Conv == normspec.ConvC {
			s = math.Sqrt(ss / (fd - 1))
			D = s + eps
		} else {
			D = math.Sqrt(ss/fd + eps)
			s = D
		}
		a := 1 / D
		in.rowMu[i], in.rowA[i], in.rowS[i], in.rowSS[i] = mu, a, s, ss
		switch kind {
		case normspec.LayerNorm:
			gam, bet, yr := g64[:len(xr)], b64[:len(xr)], yr[:len(xr)]
			k0 := lnWriteFast(xr, gam, bet, mu, a, yr)
			xt, gam, bet, yr := xr[k0:], gam[k0:], bet[k0:], yr[k0:]
			gam, bet, yr = gam[:len(xt)], bet[:len(xt)], yr[:len(xt)]
			for k, v := range xt {
				yr[k] = T(gam[k]*((float64(v)-mu)*a) + bet[k])
			}
		case normspec.AdaNorm:
			c, kk := cfg.C, cfg.K
			yr := yr[:len(xr)]
			for k, v := range xr {
				yh := (float64(v) - mu) * a
				yr[k] = T(c * (1 - kk*yh) * yh)
			}
		default:
			yr := yr[:len(xr)]
			for k, v := range xr {
				yr[k] = T((float64(v) - mu) * a)
			}
		}
	}
	if nonFinite && in.training {
		l.taps.NonFinite = true
	}
}

// rowBackward computes dx (and dγ, dβ for LayerNorm and RMSNorm) for the row
// family. Every variant is dx_k = a·(ĝ_k - m·ḡ) - b·(x_k - μ) with a = 1/D,
// where m ∈ {0,1} keeps the mean term and b the variance term (§1).
func rowBackward[T float](in *instance, x, gam, g, dx []T) {
	l := in.l
	cfg := l.cfg
	d := l.d
	fd := float64(d)
	kind := cfg.Kind
	useMean := kind == normspec.LayerNorm || kind == normspec.LayerNormSimple || kind == normspec.AdaNorm || kind == normspec.DetachVariance
	useVar := kind == normspec.LayerNorm || kind == normspec.LayerNormSimple || kind == normspec.AdaNorm || kind == normspec.DetachMean || kind == normspec.RMSNorm
	nd := fd
	if cfg.Conv == normspec.ConvC && kind != normspec.RMSNorm {
		nd = fd - 1
	}
	dgam, dbet := in.dgamma, in.dbeta
	zero(dgam)
	zero(dbet)
	c, kk := cfg.C, cfg.K
	var g64 []float64
	if gam != nil {
		in.gam64 = toF64s(in.gam64, gam)
		g64 = in.gam64
	}
	tap := in.tapGrad
	var gmuSum, gvarSum, gpsiSum, dxm, dxv, dym, dyv float64
	nonFinite := false
	for i := 0; i < in.n; i++ {
		xr := x[i*d : (i+1)*d]
		gr := g[i*d : (i+1)*d]
		dr := dx[i*d : (i+1)*d]
		if !in.real(i) {
			for k := range dr {
				dr[k] = 0
			}
			continue
		}
		mu, a, s := in.rowMu[i], in.rowA[i], in.rowS[i]
		gr = gr[:len(xr)]
		dr = dr[:len(xr)]
		// pass 1: Σĝ, Σĝx̂ (and dγ, dβ)
		var sg, sgx float64
		switch kind {
		case normspec.LayerNorm, normspec.RMSNorm:
			sg, sgx = gradSumsAffine(xr, gr, g64, mu, a, dgam, dbet)
		case normspec.AdaNorm:
			for k, v := range xr {
				xh := (float64(v) - mu) * a
				gh := c * (1 - kk*xh) * float64(gr[k])
				sg += gh
				sgx += gh * xh
			}
		default:
			sg, sgx = gradSums(xr, gr, mu, a)
		}
		if !finite(sg) || !finite(sgx) {
			nonFinite = true
		}
		mg := 0.0
		if useMean {
			mg = sg / fd
		}
		bc := 0.0
		if useVar && s > 0 {
			bc = a * sgx / (nd * s)
		}
		// pass 2: dx
		switch kind {
		case normspec.LayerNorm, normspec.RMSNorm:
			gam := g64[:len(xr)]
			k0 := lnDxFast(xr, gr, gam, mu, a, mg, bc, dr)
			xt, gt, gam, dt := xr[k0:], gr[k0:], gam[k0:], dr[k0:]
			gt, gam, dt = gt[:len(xt)], gam[:len(xt)], dt[:len(xt)]
			for k, v := range xt {
				dt[k] = T(a*(gam[k]*float64(gt[k])-mg) - bc*(float64(v)-mu))
			}
		case normspec.AdaNorm:
			for k, v := range xr {
				xh := (float64(v) - mu) * a
				dr[k] = T(a*(c*(1-kk*xh)*float64(gr[k])-mg) - bc*(float64(v)-mu))
			}
		default:
			for k, v := range xr {
				dr[k] = T(a*(float64(gr[k])-mg) - bc*(float64(v)-mu))
			}
		}
		if tap {
			// §5 LayerNorm analogue: ‖g_μ,i‖ = |Σĝ|·√d/(d·D) in both
			// conventions (the mean is over d features either way) and
			// ‖g_σ²,i‖ = ‖x̂_i‖·|Σĝx̂|/(n_d·s) with n_d·s = d·D (P) or
			// (d-1)·s (C). A detached path is not in dx and reports 0.
			sxx := in.rowSS[i] * a * a // Σx̂², from the forward's Σ(x-μ)²
			den := fd / a
			if cfg.Conv == normspec.ConvC {
				den = (fd - 1) * s
			}
			if kind == normspec.RMSNorm {
				gpsiSum += math.Sqrt(sxx) * math.Abs(sgx) / den
			} else {
				if useMean {
					gmuSum += math.Abs(sg) * math.Sqrt(fd) * a / fd
				}
				if useVar && den > 0 {
					gvarSum += math.Sqrt(sxx) * math.Abs(sgx) / den
				}
			}
			dm, dv, gm, gv := rowMoments2(dr, gr)
			dxm += dm
			dxv += dv
			dym += gm
			dyv += gv
		}
	}
	if in.training {
		if nonFinite {
			l.taps.NonFinite = true
		}
		if tap {
			nr := float64(in.nReal)
			t := &l.taps
			t.DxMean, t.DxVar, t.DyMean, t.DyVar = dxm/nr, dxv/nr, dym/nr, dyv/nr
			if kind == normspec.RMSNorm {
				t.GPsi2 = gpsiSum / nr
			} else {
				t.GMu, t.GVar = gmuSum/nr, gvarSum/nr
			}
		}
	}
}

// rowMoments is the mean and (population) variance of one row, two passes.
func rowMoments[T float](r []T) (mean, variance float64) {
	mean = sumOf(r) / float64(len(r))
	return mean, sumSqDev(r, mean) / float64(len(r))
}

// toF64s converts γ or β to float64 once per pass, into reused scratch.
func toF64s[T float](dst []float64, src []T) []float64 {
	dst = grow(dst, len(src))
	for k, v := range src {
		dst[k] = float64(v)
	}
	return dst
}

// rowMoments2 is rowMoments of dx and g rows (the Theorem-1 taps), in one
// kernel call where it can.
func rowMoments2[T float](dr, gr []T) (dm, dv, gm, gv float64) {
	if dm, dv, gm, gv, ok := rowMoments2Fast(dr, gr); ok {
		return dm, dv, gm, gv
	}
	dm, dv = rowMoments(dr)
	gm, gv = rowMoments(gr)
	return dm, dv, gm, gv
}
