package norm

import (
	"fmt"
	"github.com/normtop/normtop/normspec"
	"math"
)

// forward runs one forward step of the layer's variant on row-major n×d x
// into y. gam/bet are the layer's γ/β (nil for variants without them). In
// training mode it advances the step counter, updates the running state and
// fills the Stats and Params tap groups. It checks everything it can before
// touching any state, so a failed call changes nothing.
func forward[T float](in *instance, x, gam, bet, y []T, n int) error {
	l := in.l
	d := l.d
	if len(x) != n*d || len(y) != n*d {
		return fmt.Errorf("norm: %s: input has %d values, want %d rows × %d features", l.label(), len(x), n, d)
	}
	if l.cfg.Kind.HasAffine() && (len(gam) != d || len(bet) != d) {
		return fmt.Errorf("norm: %s: γ/β have %d/%d values, want %d", l.label(), len(gam), len(bet), d)
	}
	if l.mask != nil && len(l.mask) != n {
		return fmt.Errorf("norm: %s: mask has %d rows but the input has %d (SetMask(nil) marks every row real)", l.label(), len(l.mask), n)
	}
	if l.unitRows > 1 && n%l.unitRows != 0 {
		return fmt.Errorf("norm: %s: %d rows are not whole samples of %d rows each", l.label(), n, l.unitRows)
	}
	if l.mask == nil {
		in.mask = nil
	} else {
		in.maskBuf = append(in.maskBuf[:0], l.mask...)
		in.mask = in.maskBuf
	}
	in.training = l.training
	in.prepare(n)
	in.forwarded = true
	in.tapStats, in.tapGrad = false, false
	if in.training {
		l.step++
		l.resetTaps()
		t := &l.taps
		t.Step, t.N, t.Mask = l.step, in.nReal, l.tapMask
		in.tapStats = l.tapMask&normspec.TapStats != 0
		in.tapGrad = l.tapMask&normspec.TapGrad != 0
		// instancenorm's running statistics average per-instance ones, not
		// the per-feature batch statistics the distances compare: its
		// distances are against shadows (docs/math.md §8), so they are no tap.
		if in.tapStats && !l.cfg.Kind.UnitFamily() {
			t.RunMean = snapshot(&l.tapBuf.rm, l.runMean)
			t.RunVar = snapshot(&l.tapBuf.rv, l.runVar)
			t.RunPsi2 = snapshot(&l.tapBuf.rp, l.runPsi2)
		}
	}
	switch k := l.cfg.Kind; {
	case k == normspec.None:
		copy(y, x)
		if in.training && !rowsFinite(in, x) {
			l.taps.NonFinite = true
		}
	case k.RowFamily():
		rowForward(in, x, gam, bet, y)
	case k.UnitFamily() && l.unitRows == 1:
		unitRowForward(in, x, gam, bet, y)
	case k.UnitFamily():
		unitForward(in, x, gam, bet, y)
	case k == normspec.PowerNorm:
		pnForward(in, x, gam, bet, y)
	default:
		colForward(in, x, gam, bet, y)
	}
	if in.training {
		if in.tapStats {
			statTaps(in, x)
		}
		if l.tapMask&normspec.TapParams != 0 && l.cfg.Kind.HasAffine() {
			l.taps.GammaDrift, l.taps.BetaNorm = paramNorms(gam, bet)
		}
	}
	return nil
}

// backward computes dx (and the layer's dγ, dβ into in.dgamma/in.dbeta)
// for upstream gradient g, using what the forward pass of this instance
// left behind.
func backward[T float](in *instance, x, gam, g, dx []T, n int) error {
	l := in.l
	if !in.forwarded || in.n != n {
		return fmt.Errorf("norm: %s: backward for %d rows without a matching forward pass", l.label(), n)
	}
	if len(x) != n*l.d || len(g) != n*l.d || len(dx) != n*l.d {
		return fmt.Errorf("norm: %s: backward buffers have %d/%d/%d values, want %d×%d", l.label(), len(x), len(g), len(dx), n, l.d)
	}
	switch k := l.cfg.Kind; {
	case k == normspec.None:
		copy(dx, g)
		zero(in.dgamma)
		zero(in.dbeta)
		if in.training {
			if !rowsFinite(in, g) {
				l.taps.NonFinite = true
			}
			if in.tapGrad && in.nReal > 0 {
				var dm, dv float64
				var mom momentSums
				ok := false
				if all := g[:n*l.d]; in.plainRows() && colMatGo(all, l.d) {
					// the same sums in one kernel call (its dx moments,
					// as dx = g)
					mom, ok = momentsMat(all, all, l.d)
				}
				if ok {
					dm, dv = mom.dxm, mom.dxv
				} else {
					for i := 0; i < n; i++ {
						if in.real(i) {
							m, v := rowMoments(g[i*l.d : (i+1)*l.d])
							dm += m
							dv += v
						}
					}
				}
				nr := float64(in.nReal)
				t := &l.taps
				t.DxMean, t.DxVar, t.DyMean, t.DyVar = dm/nr, dv/nr, dm/nr, dv/nr
			}
		}
	case k.RowFamily():
		rowBackward(in, x, gam, g, dx)
	case k.UnitFamily() && l.unitRows == 1:
		unitRowBackward(in, x, gam, g, dx)
	case k.UnitFamily():
		unitBackward(in, x, gam, g, dx)
	case k == normspec.PowerNorm:
		pnBackward(in, x, gam, g, dx)
	default:
		colBackward(in, x, gam, g, dx)
	}
	return nil
}

func (l *Layer) label() string {
	if l.site.Name == "" {
		return l.cfg.Name()
	}
	return l.site.Name + " (" + l.cfg.Name() + ")"
}

func snapshot(buf *[]float64, v []float64) []float64 {
	if v == nil {
		return nil
	}
	*buf = append((*buf)[:0], v...)
	return *buf
}

// valuesFinite says every value of x is finite: x·0 is ±0 for finite x and
// NaN for NaN or ±Inf, and a sum of zeros is zero, in four independent
// sums (the identity site's probe read a resnet batch row by row, 8
// values a row, in float64).
func valuesFinite[T float](x []T) bool {
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * 0
		s1 += x[i+1] * 0
		s2 += x[i+2] * 0
		s3 += x[i+3] * 0
	}
	for ; i < len(x); i++ {
		s0 += x[i] * 0
	}
	return s0+s1+s2+s3 == 0
}

// rowsFinite says every value of the real rows of x is finite.
func rowsFinite[T float](in *instance, x []T) bool {
	d := in.l.d
	if in.mask == nil { // every row: one pass, not a loop set up per row
		return valuesFinite(x[:in.n*d])
	}
	for i := 0; i < in.n; i++ {
		if !in.real(i) {
			continue
		}
		s := 0.0
		for _, v := range x[i*d : (i+1)*d] {
			s += float64(v) * 0
		}
		if s != 0 { // x·0 is 0 for finite x and NaN for NaN or ±Inf
			return false
		}
	}
	return true
}

// statTaps fills the Stats group: per-feature batch statistics of the
// tensor the variant normalises (after GroupScaling where there is one),
// input moments, and AdaNorm's |y| ≥ 1/k fraction. Two passes over the
// real rows: sums (statTapSums), then deviations from the means
// (statTapDevs).
func statTaps[T float](in *instance, x []T) {
	l := in.l
	t := &l.taps
	d := l.d
	nr := float64(in.nReal)
	if in.nReal == 0 {
		return
	}
	mean := grow(l.tapBuf.bm, d)
	vr := grow(l.tapBuf.bv, d)
	psi := grow(l.tapBuf.bp, d)
	l.tapBuf.bm, l.tapBuf.bv, l.tapBuf.bp = mean, vr, psi
	zero(mean)
	zero(vr)
	zero(psi)
	sum, maxAbs := statTapSums(in, x, mean, psi)
	inMean := sum / (nr * float64(d))
	for k := range mean {
		mean[k] /= nr
		psi[k] /= nr
	}
	ss := statTapDevs(in, x, inMean, mean, vr)
	for k := range vr {
		vr[k] /= nr
	}
	t.BatchMean, t.BatchVar, t.BatchPsi2 = mean, vr, psi
	t.InMean, t.InStd, t.InMaxAbs = inMean, math.Sqrt(ss/(nr*float64(d))), maxAbs
	if !finite(sum) || !finite(ss) {
		t.NonFinite = true
	}
	if l.cfg.Kind == normspec.AdaNorm {
		t.AdaFrac = adaFrac(in, x)
	}
}

// noScales are the GroupScaling scales of a row without GroupScaling: one
// group, scale 1. Read only.
var noScales = [1]float64{1}

// rowScales is row i's GroupScaling scales, one per group of in.layout().
func (in *instance) rowScales(i int) []float64 {
	if in.l.groups == 0 {
		return noScales[:]
	}
	G := in.l.groups
	return in.gsA[i*G : (i+1)*G]
}

// statTapSums is the Stats taps' first pass over the real rows: it adds
// x·sc and (x·sc)² per feature to mean and psi, and returns Σx and max|x|
// (NaN if x holds a NaN) over the whole input.
func statTapSums[T float](in *instance, x []T, mean, psi []float64) (sum, maxAbs float64) {
	d := in.l.d
	all := x[:in.n*d]
	if in.plainRows() && colMatGo(all, d) {
		return tapAccumMat(all, d, mean, psi)
	}
	if in.plainRows() && colMatFMA(all, d) && tapRows(x, d) {
		if sum, maxAbs, ok := tapAccumMatFMA(all, d, mean, psi); ok {
			return sum, maxAbs
		}
		zero(mean) // a NaN: the row loop below, from fresh sums
		zero(psi)
	}
	G, m := in.layout()
	rows := tapRows(x, m)
	for i := 0; i < in.n; i++ {
		if !in.real(i) {
			continue
		}
		xr := x[i*d : (i+1)*d]
		if rows {
			s, mx := tapAccumRowFast(xr, m, in.rowScales(i), mean, psi)
			sum += s
			if mx > maxAbs || mx != mx {
				maxAbs = mx
			}
			continue
		}
		for gi := 0; gi < G; gi++ {
			lo, hi := gi*m, (gi+1)*m
			s, mx := tapAccum(xr[lo:hi], in.scale(i, gi), mean[lo:hi], psi[lo:hi])
			sum += s
			if mx > maxAbs || mx != mx {
				maxAbs = mx
			}
		}
	}
	return sum, maxAbs
}

// statTapDevs is the Stats taps' second pass over the real rows: it adds
// (x·sc - mean)² per feature to vr and returns Σ(x - inMean)² over the
// whole input.
func statTapDevs[T float](in *instance, x []T, inMean float64, mean, vr []float64) (ss float64) {
	d := in.l.d
	all := x[:in.n*d]
	if in.plainRows() && colMatGo(all, d) {
		return tapDevMat(all, d, inMean, mean, vr)
	}
	if in.plainRows() && colMatFMA(all, d) && tapRows(x, d) {
		return tapDevMatFMA(all, d, inMean, mean, vr)
	}
	G, m := in.layout()
	rows := tapRows(x, m)
	for i := 0; i < in.n; i++ {
		if !in.real(i) {
			continue
		}
		xr := x[i*d : (i+1)*d]
		if rows { // both sums in one pass over the row
			ss += tapDevRowFast(xr, m, inMean, in.rowScales(i), mean, vr)
			continue
		}
		ss += sumSqDev(xr, inMean)
		for gi := 0; gi < G; gi++ {
			lo, hi := gi*m, (gi+1)*m
			colAccumDev(xr[lo:hi], in.scale(i, gi), mean[lo:hi], vr[lo:hi])
		}
	}
	return ss
}

// adaFrac is AdaNorm's fraction of real entries with |y| ≥ 1/k for the
// normalised y (before φ), i.e. where φ ≤ 0.
func adaFrac[T float](in *instance, x []T) float64 {
	d := in.l.d
	lim := 1 / in.l.cfg.K
	cnt := 0
	for i := 0; i < in.n; i++ {
		if !in.real(i) {
			continue
		}
		mu, a := in.rowMu[i], in.rowA[i]
		for _, v := range x[i*d : (i+1)*d] {
			if math.Abs((float64(v)-mu)*a) >= lim {
				cnt++
			}
		}
	}
	return float64(cnt) / (float64(in.nReal) * float64(d))
}

// momentSums adds up the Theorem-1 taps over the real rows: each row's mean
// and variance of dx and of g. It is a small value, kept in registers by
// the row loops, so the sums add in the order of four local variables.
type momentSums struct{ dxm, dxv, dym, dyv float64 }

// add returns the sums with one row's moments added.
func (m momentSums) add(dm, dv, gm, gv float64) momentSums {
	return momentSums{m.dxm + dm, m.dxv + dv, m.dym + gm, m.dyv + gv}
}

// set records the Theorem-1 taps: the moments' means over nr rows.
func (m momentSums) set(t *normspec.Taps, nr float64) {
	t.DxMean, t.DxVar, t.DyMean, t.DyVar = m.dxm/nr, m.dxv/nr, m.dym/nr, m.dyv/nr
}

func paramNorms[T float](gam, bet []T) (drift, bnorm float64) {
	for k := range gam {
		g := float64(gam[k]) - 1
		b := float64(bet[k])
		drift += g * g
		bnorm += b * b
	}
	return math.Sqrt(drift), math.Sqrt(bnorm)
}

// tapAccum adds x·sc and (x·sc)² of one group to mean and psi, and returns
// the group's Σx and max|x| (NaN if it holds a NaN).
func tapAccum[T float](xg []T, sc float64, mean, psi []float64) (sum, maxAbs float64) {
	mean, psi = mean[:len(xg)], psi[:len(xg)]
	k0, sum, maxAbs := tapAccumFast(xg, sc, mean, psi)
	xg, mean, psi = xg[k0:], mean[k0:], psi[k0:]
	mean, psi = mean[:len(xg)], psi[:len(xg)]
	for k, v := range xg {
		f := float64(v)
		sum += f
		if a := math.Abs(f); a > maxAbs || a != a {
			maxAbs = a
		}
		xs := f * sc
		mean[k] += xs
		psi[k] += xs * xs
	}
	return sum, maxAbs
}
