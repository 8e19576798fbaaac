package nn

import "math"

// The elementwise loops of the softmax, cross-entropy, bias and Adam ops.
// Each runs the float32 kernels of vec_amd64.s where they apply (see the
// *Fast wrappers) and the Go loop below otherwise: float64 data, builds
// tagged purego, other architectures, and the tails the kernels leave.

// maxOf is the largest element of x, −Inf when x is empty. NaNs are
// skipped or win depending on the path: the callers only shift exp's
// argument by it, and a NaN input makes exp's output NaN either way.
func maxOf[T Float](x []T) T {
	if m, ok := maxOfFast(x); ok {
		return m
	}
	m := T(math.Inf(-1))
	for _, v := range x {
		if v > m {
			m = v
		}
	}
	return m
}

// ExpShiftSum sets y[i] = exp(x[i]−s) and returns the float64 sum of the
// y[i] (as rounded to T). x[i]−s is rounded to T before exp, as the
// kernel's lanes do. y may be x; with y nil only the sum is computed.
func ExpShiftSum[T Float](x, y []T, s T) float64 {
	if sum, ok := expShiftSumFast(x, y, s); ok {
		return sum
	}
	var sum float64
	for i, v := range x {
		e := T(math.Exp(float64(v - s)))
		if y != nil {
			y[i] = e
		}
		sum += float64(e)
	}
	return sum
}

// expScaleSub sets y[i] = exp(x[i]−s)·a − b: ExpShiftSum's exp (rounded
// to T), then scaleSub's product and difference, in one pass; b = 0 gives
// scale's product. y is at least as long as x and may be x.
func expScaleSub[T Float](x, y []T, s, a, b T) {
	if expScaleSubFast(x, y, s, a, b) {
		return
	}
	for i, v := range x {
		e := T(math.Exp(float64(v - s)))
		y[i] = T(e*a) - b
	}
}

// softmaxRow replaces x by softmax(x): all NaN if x holds a NaN or +Inf
// or every entry is −Inf (the sum is NaN then).
func softmaxRow[T Float](x []T) {
	m := maxOf(x)
	if z := ExpShiftSum(x, x, m); !(z <= 0) {
		scale(x, T(1/z))
	}
}

// scale multiplies x by a in place.
func scale[T Float](x []T, a T) {
	for k := scaleFast(x, a); k < len(x); k++ {
		x[k] *= a
	}
}

// maxSum is maxOf(x) (for NaN-free x) and Σ x[i] in float64, in one pass
// (label smoothing's share of the loss reads a row's mean logit); the
// kernel sums in lanes, so its last bits may differ from a sequential
// sum's.
func maxSum[T Float](x []T) (m T, s float64) {
	k, m, s := maxSumFast(x)
	for _, v := range x[k:] {
		if v > m {
			m = v
		}
		s += float64(v)
	}
	return m, s
}

// scaleSub sets x = x·a − b in place, the product rounded before the
// subtraction (as scale followed by a pass of −b: never fused).
func scaleSub[T Float](x []T, a, b T) {
	for k := scaleSubFast(x, a, b); k < len(x); k++ {
		x[k] = T(x[k]*a) - b
	}
}

// addRow sets out = x + b element-wise; b and out are at least as long as x.
func addRow[T Float](x, b, out []T) {
	for k := addRowFast(x, b, out); k < len(x); k++ {
		out[k] = x[k] + b[k]
	}
}

// colAdd adds g to the float64 accumulators acc (at least as long as g).
func colAdd[T Float](g []T, acc []float64) {
	for k := colAddFast(g, acc); k < len(g); k++ {
		acc[k] += float64(g[k])
	}
}

// softmaxGrad turns d = ∂L/∂p into sc·∂L/∂s for one row p = softmax(s):
// d[i] = p[i]·(d[i] − Σⱼ p[j]·d[j])·sc, in float64.
func softmaxGrad[T Float](p, d []T, sc float64) {
	d = d[:len(p)]
	k, dot := dotFast(p, d)
	for j := k; j < len(p); j++ {
		dot += float64(p[j]) * float64(d[j])
	}
	for j := softmaxGradFast(p, d, dot, sc); j < len(p); j++ {
		d[j] = T(float64(p[j]) * (float64(d[j]) - dot) * sc)
	}
}
