package norm

import (
	"github.com/normtop/normtop/normspec"
	"math"
)

// Row family (docs/math.md §1): LayerNorm, its Xu et al. relatives and RMSNorm
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

// rowForward normalises each row: its statistics (rowStatistics), kept
// per row for the backward, then y as the variant writes it.
func rowForward[T float](in *instance, x, gam, bet, y []T) {
	l := in.l
	cfg := &l.cfg
	d := l.d
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
		mu, a, s, ss, ok := rowStatistics(cfg, xr)
		if !ok && in.real(i) {
			nonFinite = true
		}
		in.rowMu[i], in.rowA[i], in.rowS[i], in.rowSS[i] = mu, a, s, ss
		switch cfg.Kind {
		case normspec.RMSNorm:
			rmsWrite(xr, g64, b64, a, yr)
		case normspec.LayerNorm:
			lnWrite(xr, g64, b64, mu, a, yr)
		case normspec.AdaNorm:
			adaWrite(xr, mu, a, cfg.C, cfg.K, yr)
		default:
			plainWrite(xr, mu, a, yr)
		}
	}
	if nonFinite && in.training {
		l.taps.NonFinite = true
	}
}

// rowStatistics is a row's statistics (§1): μ (0 for RMSNorm), a = 1/D,
// the s of the backward's variance term and Σ(x-μ)². D is √(Σ(x-μ)²/d+ε)
// (conv=p, RMSNorm with μ = 0, and then s = D) or s+ε with
// s = √(Σ(x-μ)²/(d-1)) (conv=c). ok is false when Σ(x-μ)² is not finite.
func rowStatistics[T float](cfg *normspec.Config, xr []T) (mu, a, s, ss float64, ok bool) {
	fd := float64(len(xr))
	eps := cfg.Eps
	if cfg.Kind == normspec.RMSNorm {
		ss = sumSqDev(xr, 0)
		a = 1 / math.Sqrt(ss/fd+eps)
		return 0, a, 1 / a, ss, finite(ss)
	}
	mu = sumOf(xr) / fd
	ss = sumSqDev(xr, mu)
	ok = finite(ss)
	// A constant row must give x̂ = 0 exactly (§4), but μ = Σx/d can
	// differ from the constant by rounding.
	if ss <= 1e-20*mu*mu*fd && constantRow(xr) {
		mu, ss = float64(xr[0]), 0
	}
	var D float64
	if cfg.Conv == normspec.ConvC {
		s = math.Sqrt(ss / (fd - 1))
		D = s + eps
	} else {
		D = math.Sqrt(ss/fd + eps)
		s = D
	}
	return mu, 1 / D, s, ss, ok
}

// rmsWrite writes RMSNorm's y = γ⊙x·a + β over a row.
func rmsWrite[T float](xr []T, gam, bet []float64, a float64, yr []T) {
	gam, bet, yr = gam[:len(xr)], bet[:len(xr)], yr[:len(xr)]
	for k, v := range xr {
		yr[k] = T(gam[k]*float64(v)*a + bet[k])
	}
}

// lnWrite writes LayerNorm's y = γ⊙(x-μ)·a + β over a row.
func lnWrite[T float](xr []T, gam, bet []float64, mu, a float64, yr []T) {
	gam, bet, yr = gam[:len(xr)], bet[:len(xr)], yr[:len(xr)]
	k0 := lnWriteFast(xr, gam, bet, mu, a, yr)
	xt, gam, bet, yr := xr[k0:], gam[k0:], bet[k0:], yr[k0:]
	gam, bet, yr = gam[:len(xt)], bet[:len(xt)], yr[:len(xt)]
	for k, v := range xt {
		yr[k] = T(gam[k]*((float64(v)-mu)*a) + bet[k])
	}
}

// adaWrite writes AdaNorm's y = φ⊙x̂ with φ = C(1 - k·x̂), x̂ = (x-μ)·a.
func adaWrite[T float](xr []T, mu, a, c, kk float64, yr []T) {
	yr = yr[:len(xr)]
	for k, v := range xr {
		yh := (float64(v) - mu) * a
		yr[k] = T(c * (1 - kk*yh) * yh)
	}
}

// plainWrite writes y = (x-μ)·a over a row (no γ, β).
func plainWrite[T float](xr []T, mu, a float64, yr []T) {
	yr = yr[:len(xr)]
	for k, v := range xr {
		yr[k] = T((float64(v) - mu) * a)
	}
}

// rowBackward computes dx (and dγ, dβ for LayerNorm and RMSNorm) for the row
// family in two passes over each real row: the sums Σĝ and Σĝx̂, then dx,
// with the terms the variant keeps (rowGrad). Padded rows get dx = 0.
func rowBackward[T float](in *instance, x, gam, g, dx []T) {
	l := in.l
	d := l.d
	p := newRowGrad(l.cfg, d)
	zero(in.dgamma)
	zero(in.dbeta)
	var g64 []float64
	if gam != nil {
		in.gam64 = toF64s(in.gam64, gam)
		g64 = in.gam64
	}
	var norms gradNorms
	var mom momentSums
	nonFinite := false
	for i := 0; i < in.n; i++ {
		xr := x[i*d : (i+1)*d]
		gr := g[i*d : (i+1)*d]
		dr := dx[i*d : (i+1)*d]
		if !in.real(i) {
			zeroT(dr)
			continue
		}
		mu, a, s := in.rowMu[i], in.rowA[i], in.rowS[i]
		gr = gr[:len(xr)]
		dr = dr[:len(xr)]
		// pass 1: Σĝ and Σĝx̂ (and dγ += g⊙x̂, dβ += g where there are γ, β)
		var sg, sgx float64
		switch p.kind {
		case normspec.LayerNorm, normspec.RMSNorm:
			sg, sgx = gradSumsAffine(xr, gr, g64, mu, a, in.dgamma, in.dbeta)
		case normspec.AdaNorm:
			sg, sgx = adaGradSums(xr, gr, mu, a, p.c, p.kk)
		default:
			sg, sgx = gradSums(xr, gr, mu, a)
		}
		if !finite(sg) || !finite(sgx) {
			nonFinite = true
		}
		mg, bc := p.coefficients(sg, sgx, a, s)
		// pass 2: dx_k = a·(ĝ_k - m·ḡ) - b·(x_k - μ)
		switch p.kind {
		case normspec.LayerNorm, normspec.RMSNorm:
			affineDx(xr, gr, g64, mu, a, mg, bc, dr)
		case normspec.AdaNorm:
			adaDx(xr, gr, mu, a, mg, bc, p.c, p.kk, dr)
		default:
			plainDx(xr, gr, mu, a, mg, bc, dr)
		}
		if in.tapGrad {
			norms = p.addNorms(norms, in.rowSS[i], a, s, sg, sgx)
			mom = mom.add(rowMoments2(dr, gr))
		}
	}
	if in.training {
		if nonFinite {
			l.taps.NonFinite = true
		}
		if in.tapGrad {
			nr := float64(in.nReal)
			mom.set(&l.taps, nr)
			p.setNorms(&l.taps, norms, nr)
		}
	}
}

// rowGrad is what a row-family variant keeps of the backward (§1): every
// variant is dx_k = a·(ĝ_k - m·ḡ) - b·(x_k - μ) with a = 1/D, where
// m ∈ {0,1} keeps the mean term (useMean) and b the variance term (useVar).
type rowGrad struct {
	kind            normspec.Kind
	convC           bool
	useMean, useVar bool
	fd, nd          float64 // d, and the variance's divisor n_d: d (P, RMSNorm) or d-1 (C)
	c, kk           float64 // AdaNorm's φ = C(1 - k·x̂)
}

func newRowGrad(cfg normspec.Config, d int) rowGrad {
	kind := cfg.Kind
	p := rowGrad{kind: kind, convC: cfg.Conv == normspec.ConvC, fd: float64(d), nd: float64(d), c: cfg.C, kk: cfg.K}
	p.useMean = kind == normspec.LayerNorm || kind == normspec.LayerNormSimple || kind == normspec.AdaNorm || kind == normspec.DetachVariance
	p.useVar = kind == normspec.LayerNorm || kind == normspec.LayerNormSimple || kind == normspec.AdaNorm || kind == normspec.DetachMean || kind == normspec.RMSNorm
	if p.convC && kind != normspec.RMSNorm {
		p.nd = p.fd - 1
	}
	return p
}

// coefficients are the row's m·ḡ = Σĝ/d and b = a·Σĝx̂/(n_d·s), each 0
// where the variant detaches its path.
func (p rowGrad) coefficients(sg, sgx, a, s float64) (mg, bc float64) {
	if p.useMean {
		mg = sg / p.fd
	}
	if p.useVar && s > 0 {
		bc = a * sgx / (p.nd * s)
	}
	return mg, bc
}

// adaGradSums is AdaNorm's Σĝ and Σĝx̂ over a row, ĝ = φ⊙g with
// φ = C(1 - k·x̂) detached.
func adaGradSums[T float](xr, gr []T, mu, a, c, kk float64) (sg, sgx float64) {
	gr = gr[:len(xr)]
	for k, v := range xr {
		xh := (float64(v) - mu) * a
		gh := c * (1 - kk*xh) * float64(gr[k])
		sg += gh
		sgx += gh * xh
	}
	return sg, sgx
}

// affineDx writes dx_k = a·(γ_k·g_k - m·ḡ) - b·(x_k - μ) over a row.
func affineDx[T float](xr, gr []T, gam []float64, mu, a, mg, bc float64, dr []T) {
	gam = gam[:len(xr)]
	k0 := lnDxFast(xr, gr, gam, mu, a, mg, bc, dr)
	xt, gt, gam, dt := xr[k0:], gr[k0:], gam[k0:], dr[k0:]
	gt, gam, dt = gt[:len(xt)], gam[:len(xt)], dt[:len(xt)]
	for k, v := range xt {
		dt[k] = T(a*(gam[k]*float64(gt[k])-mg) - bc*(float64(v)-mu))
	}
}

// adaDx writes AdaNorm's dx_k = a·(φ_k·g_k - m·ḡ) - b·(x_k - μ) over a row.
func adaDx[T float](xr, gr []T, mu, a, mg, bc, c, kk float64, dr []T) {
	gr, dr = gr[:len(xr)], dr[:len(xr)]
	for k, v := range xr {
		xh := (float64(v) - mu) * a
		dr[k] = T(a*(c*(1-kk*xh)*float64(gr[k])-mg) - bc*(float64(v)-mu))
	}
}

// plainDx writes dx_k = a·(g_k - m·ḡ) - b·(x_k - μ) over a row (no γ).
func plainDx[T float](xr, gr []T, mu, a, mg, bc float64, dr []T) {
	gr, dr = gr[:len(xr)], dr[:len(xr)]
	for k, v := range xr {
		dr[k] = T(a*(float64(gr[k])-mg) - bc*(float64(v)-mu))
	}
}

// gradNorms adds up the §5 gradient norms over the real rows.
type gradNorms struct{ gmu, gvar, gpsi float64 }

// addNorms returns s with a row's §5 norms added, the LayerNorm analogue:
// ‖g_μ,i‖ = |Σĝ|·√d/(d·D) in both conventions (the mean is over d features
// either way) and ‖g_σ²,i‖ = ‖x̂_i‖·|Σĝx̂|/(n_d·s) with n_d·s = d·D (P) or
// (d-1)·s (C); RMSNorm's ‖g_ψ²,i‖ is the latter. A detached path is not in
// dx and adds 0. ss is the forward's Σ(x-μ)².
func (p rowGrad) addNorms(sums gradNorms, ss, a, s, sg, sgx float64) gradNorms {
	fd := p.fd
	sxx := ss * a * a // Σx̂²
	den := fd / a
	if p.convC {
		den = (fd - 1) * s
	}
	if p.kind == normspec.RMSNorm {
		sums.gpsi += math.Sqrt(sxx) * math.Abs(sgx) / den
		return sums
	}
	if p.useMean {
		sums.gmu += math.Abs(sg) * math.Sqrt(fd) * a / fd
	}
	if p.useVar && den > 0 {
		sums.gvar += math.Sqrt(sxx) * math.Abs(sgx) / den
	}
	return sums
}

// setNorms records the §5 norm taps: the sums' means over nr real rows.
func (p rowGrad) setNorms(t *normspec.Taps, sums gradNorms, nr float64) {
	if p.kind == normspec.RMSNorm {
		t.GPsi2 = sums.gpsi / nr
	} else {
		t.GMu, t.GVar = sums.gmu/nr, sums.gvar/nr
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
