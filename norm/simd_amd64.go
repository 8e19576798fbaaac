//go:build amd64 && !purego

package norm

import (
	"math"
	"unsafe"

	"github.com/normtop/normtop/internal/simd"
)

// useAVX selects the AVX kernels of simd_amd64.s for float32 tensors. Go
// does not vectorise, and one scalar float32→float64 pass costs more than a
// whole memmove of the batch; the kernels do four lanes per instruction
// with float64 arithmetic. Some use FMA (one rounding instead of two), so
// both features are required. Tests switch it off to compare.
var useAVX = simd.AVXFMA

// The kernels; see simd_amd64.s. len(x) must be a multiple of 16 and the
// other slices at least as long (the wrappers below make sure of both).

//go:noescape
func lnWrite32AVX(x []float32, gam, bet []float64, mu, a float64, y []float32)

//go:noescape
func gradSumsAffine32AVX(x, g []float32, gam []float64, mu, a float64, dgam, dbet []float64) (sg, sgx float64)

//go:noescape
func lnDx32AVX(x, g []float32, gam []float64, mu, a, mg, bc float64, dx []float32)

//go:noescape
func pnFwd32AVX(x []float32, sc float64, acc, a, gam, bet []float64, y []float32)

//go:noescape
func pnRowGroup32AVX(x, g []float32, gam []float64, sc float64, a, ab, nu, dgam, dbet, rb []float64) float64

//go:noescape
func pnFwdRow32AVX(x []float32, m int, fm, eps float64, gs, acc, a, gam, bet []float64, y []float32) float64

//go:noescape
func pnBwdRow32AVX(x, g []float32, m int, fm float64, gs, cs, w1, w2, dgxs, dbet, rb []float64, dx []float32)

//go:noescape
func tapAccum32AVX(x []float32, sc float64, mean, psi []float64) (sum, maxAbs float64)

//go:noescape
func tapDevRow32AVX(x []float32, m int, mu float64, gs, mean, vs []float64) float64

//go:noescape
func tapAccumRow32AVX(x []float32, m int, gs, mean, psi []float64) (sum, maxAbs float64)

//go:noescape
func colAccumDev32AVX(x []float32, sc float64, mean, vs []float64)

//go:noescape
func gpsi32AVX(x []float32, sc float64, nu, a, ab []float64) float64

//go:noescape
func gpsiRow32AVX(x []float32, m int, gs, w []float64) float64

//go:noescape
func colWrite32AVX(x []float32, sc float64, mu, a, gam, bet []float64, y []float32)

//go:noescape
func moments2_32AVX(a, b []float32, fn float64) (ma, sa, mb, sb float64)

//go:noescape
func pnDx32AVX(x []float32, rb []float64, sc, c float64, dx []float32)

// avxLen is how many leading elements of x the AVX kernels take: a
// multiple of 16 when T is float32 and AVX is on, else 0.
func avxLen[T float](x []T) int {
	var z T
	if !useAVX || unsafe.Sizeof(z) != 4 {
		return 0
	}
	return len(x) &^ 15
}

// f32 views a float32-shaped slice as []float32 (only called when
// avxLen > 0, i.e. T is float32).
func f32[T float](v []T) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

// The wrappers run the kernels on the first k = avxLen(x) elements and
// return k; the caller's Go loop does the rest (everything when k = 0).

func sumOfFast[T float](x []T) (k int, s float64) {
	if k = avxLen(x); k > 0 {
		s = simd.Sum32(f32(x)[:k])
	}
	return k, s
}

func sumSqDevFast[T float](x []T, mu float64) (k int, s float64) {
	if k = avxLen(x); k > 0 {
		s = simd.SumSqDev32(f32(x)[:k], mu)
	}
	return k, s
}

func lnWriteFast[T float](x []T, gam, bet []float64, mu, a float64, y []T) int {
	k := avxLen(x)
	if k > 0 {
		lnWrite32AVX(f32(x)[:k], gam[:k], bet[:k], mu, a, f32(y)[:k])
	}
	return k
}

func gradSumsAffineFast[T float](x, g []T, gam []float64, mu, a float64, dgam, dbet []float64) (k int, sg, sgx float64) {
	if k = avxLen(x); k > 0 {
		sg, sgx = gradSumsAffine32AVX(f32(x)[:k], f32(g)[:k], gam[:k], mu, a, dgam[:k], dbet[:k])
	}
	return k, sg, sgx
}

func lnDxFast[T float](x, g []T, gam []float64, mu, a, mg, bc float64, dx []T) int {
	k := avxLen(x)
	if k > 0 {
		lnDx32AVX(f32(x)[:k], f32(g)[:k], gam[:k], mu, a, mg, bc, f32(dx)[:k])
	}
	return k
}

func pnFwdFast[T float](x []T, sc float64, acc, a, gam, bet []float64, y []T) int {
	k := avxLen(x)
	if k > 0 {
		pnFwd32AVX(f32(x)[:k], sc, acc[:k], a[:k], gam[:k], bet[:k], f32(y)[:k])
	}
	return k
}

func pnRowGroupFast[T float](x, g []T, gam []float64, sc float64, a, ab, nu, dgam, dbet, rb []float64) (k int, dot float64) {
	if k = avxLen(x); k > 0 {
		dot = pnRowGroup32AVX(f32(x)[:k], f32(g)[:k], gam[:k], sc, a[:k], ab[:k], nu[:k], dgam[:k], dbet[:k], rb[:k])
	}
	return k, dot
}

func pnDxFast[T float](x []T, rb []float64, sc, c float64, dx []T) int {
	k := avxLen(x)
	if k > 0 {
		pnDx32AVX(f32(x)[:k], rb[:k], sc, c, f32(dx)[:k])
	}
	return k
}

// pnRowsFast reports whether the whole-row PowerNorm kernels apply: T is
// float32, AVX is on and the groups are whole 16-element blocks.
func pnRowsFast[T float](x []T, m int) bool {
	return m > 0 && m%16 == 0 && avxLen(x) == len(x)
}

// pnFwdRowFast is PowerNorm's forward after warmup for one real row (see
// pnFwdRow32AVX); it returns the row's Σx² over all groups. Only call it
// when pnRowsFast holds.
func pnFwdRowFast[T float](x []T, m int, eps float64, gs, acc, a, gam, bet []float64, y []T) float64 {
	d := len(x)
	if len(gs)*m != d {
		panic("norm: pnFwdRowFast: groups do not tile the row")
	}
	return pnFwdRow32AVX(f32(x), m, float64(m), eps, gs, acc[:d], a[:d], gam[:d], bet[:d], f32(y)[:d])
}

// pnBwdRowFast is PowerNorm's training backward for one real row (see
// pnBwdRow32AVX: w1 = γ⊙ab, w2 = ν⊙a⊙ab, and dgxs collects Σg·xs, which the
// caller multiplies by a for dγ); cs is scratch for one value per group.
// Only call it when pnRowsFast holds.
func pnBwdRowFast[T float](x, g []T, m int, gs, cs, w1, w2, dgxs, dbet, rb []float64, dx []T) {
	d := len(x)
	if len(gs)*m != d || len(cs) < len(gs) {
		panic("norm: pnBwdRowFast: groups do not tile the row")
	}
	pnBwdRow32AVX(f32(x), f32(g)[:d], m, float64(m), gs, cs, w1[:d], w2[:d], dgxs[:d], dbet[:d], rb[:d], f32(dx)[:d])
}

// tapAccumFast returns maxAbs = NaN when the prefix holds a NaN, as the Go
// loop does: the kernel's Σx is then NaN, and only then is the prefix
// rescanned here.
func tapAccumFast[T float](x []T, sc float64, mean, psi []float64) (k int, sum, maxAbs float64) {
	if k = avxLen(x); k > 0 {
		sum, maxAbs = tapAccum32AVX(f32(x)[:k], sc, mean[:k], psi[:k])
		if math.IsNaN(sum) {
			maxAbs = 0
			for _, v := range x[:k] {
				if a := math.Abs(float64(v)); a > maxAbs || a != a {
					maxAbs = a
				}
			}
		}
	}
	return k, sum, maxAbs
}

// tapRows reports whether statTaps can run its two passes one row at a
// time in the kernels (groups of m features, whole 16-element blocks).
func tapRows[T float](x []T, m int) bool {
	return m > 0 && len(x) >= m && avxLen(x[:m]) == m
}

// tapAccumRowFast is tapAccum over one row's groups (scales gs); maxAbs is
// NaN when the row holds a NaN, as the Go loop gives. Only call it when
// tapRows holds.
func tapAccumRowFast[T float](x []T, m int, gs, mean, psi []float64) (sum, maxAbs float64) {
	d := len(x)
	if len(gs)*m != d {
		panic("norm: tapAccumRowFast: groups do not tile the row")
	}
	sum, maxAbs = tapAccumRow32AVX(f32(x), m, gs, mean[:d], psi[:d])
	if math.IsNaN(sum) { // a NaN, or +Inf and -Inf: rescan for max|x|
		maxAbs = 0
		for _, v := range x {
			if a := math.Abs(float64(v)); a > maxAbs || a != a {
				maxAbs = a
			}
		}
	}
	return sum, maxAbs
}

// tapDevRowFast adds (x·gs - mean)² to vs and returns Σ(x-μ)² over one row.
// Only call it when tapRows holds.
func tapDevRowFast[T float](x []T, m int, mu float64, gs, mean, vs []float64) float64 {
	d := len(x)
	if len(gs)*m != d {
		panic("norm: tapDevRowFast: groups do not tile the row")
	}
	return tapDevRow32AVX(f32(x), m, mu, gs, mean[:d], vs[:d])
}

func colAccumDevFast[T float](x []T, sc float64, mean, vs []float64) int {
	k := avxLen(x)
	if k > 0 {
		colAccumDev32AVX(f32(x)[:k], sc, mean[:k], vs[:k])
	}
	return k
}

func gpsiFast[T float](x []T, sc float64, nu, a, ab []float64) (k int, s float64) {
	if k = avxLen(x); k > 0 {
		s = gpsi32AVX(f32(x)[:k], sc, nu[:k], a[:k], ab[:k])
	}
	return k, s
}

// pnGPsi2RowFast is Σ over one row's groups of pnGPsi2Group, for the fast
// backward, with w2 = ν⊙a⊙ab from pnBwdRowFast (so the products are formed
// in a different order). Only call it when pnRowsFast holds.
func pnGPsi2RowFast[T float](x []T, m int, gs, w2 []float64) float64 {
	d := len(x)
	if len(gs)*m != d {
		panic("norm: pnGPsi2RowFast: groups do not tile the row")
	}
	return gpsiRow32AVX(f32(x), m, gs, w2[:d])
}

func colWriteFast[T float](x []T, sc float64, mu, a, gam, bet []float64, y []T) int {
	k := avxLen(x)
	if k > 0 {
		colWrite32AVX(f32(x)[:k], sc, mu[:k], a[:k], gam[:k], bet[:k], f32(y)[:k])
	}
	return k
}

// rowMoments2Fast is rowMoments of two rows of equal length in one kernel
// call; ok is false (nothing done) unless the kernels take whole rows.
func rowMoments2Fast[T float](a, b []T) (ma, va, mb, vb float64, ok bool) {
	n := len(a)
	if n == 0 || avxLen(a) != n || len(b) != n {
		return 0, 0, 0, 0, false
	}
	fn := float64(n)
	ma, sa, mb, sb := moments2_32AVX(f32(a), f32(b), fn)
	return ma, sa / fn, mb, sb / fn, true
}
