package nn

import (
	"math"

	"gorgonia.org/tensor"
)

// Adam hyper-parameters: β1 0.9 and β2 0.98 as in the Transformer papers
// the norms come from (Vaswani et al.; PowerNorm's released code); ε 1e-9
// as there too.
const (
	AdamBeta1 = 0.9
	AdamBeta2 = 0.98
	AdamEps   = 1e-9
)

// Adam is Adam with bias correction, in plain Go on the parameter tensors'
// own backing slices. Moments are float64 whatever the parameters' dtype.
type Adam struct {
	t    int
	m, v [][]float64
	// WeightDecay shrinks every parameter by lr·WeightDecay before each
	// update, decoupled from the gradient and its moments, as fairseq's
	// Adam does (Loshchilov & Hutter's fix of L2 in Adam). 0: none.
	WeightDecay float64
}

// NewAdam is Adam for parameters of the given sizes, moments at zero.
func NewAdam(sizes []int) *Adam {
	a := &Adam{m: make([][]float64, len(sizes)), v: make([][]float64, len(sizes))}
	for i, n := range sizes {
		a.m[i] = make([]float64, n)
		a.v[i] = make([]float64, n)
	}
	return a
}

// Step applies one update with learning rate lr to every parameter, the
// gradients scaled by gscale first (1, or the clipping factor). Each
// gradient has its parameter's dtype and size.
func (a *Adam) Step(params, grads []*tensor.Dense, lr, gscale float64) {
	a.t++
	c1 := 1 - math.Pow(AdamBeta1, float64(a.t))
	c2 := 1 - math.Pow(AdamBeta2, float64(a.t))
	k := newAdamConsts(lr, gscale, c1, c2, a.WeightDecay)
	for i, p := range params {
		switch p.Dtype() {
		case tensor.Float32:
			adamUpdate(p.Float32s(), grads[i].Float32s(), a.m[i], a.v[i], &k)
		case tensor.Float64:
			adamUpdate(p.Float64s(), grads[i].Float64s(), a.m[i], a.v[i], &k)
		}
	}
}

// adamConsts are adamUpdate's scalars, in the order the kernels read them.
type adamConsts struct {
	gscale, b1, b1c, b2, b2c, lrc1, ic2, eps float64
	// shrink is lr·WeightDecay; decay is 1 when WeightDecay ≠ 0 (a zero
	// shrink still multiplies: 0·±Inf is NaN, as the separate pass made it).
	shrink float64
	decay  uint64
}

// newAdamConsts are the scalars of one step: lr/c1 and 1/c2 are formed
// once, so the loop divides once per element instead of three times (a
// division or square root takes as long as a dozen multiplies).
func newAdamConsts(lr, gscale, c1, c2, weightDecay float64) adamConsts {
	k := adamConsts{gscale: gscale, b1: AdamBeta1, b1c: 1 - AdamBeta1, b2: AdamBeta2, b2c: 1 - AdamBeta2,
		lrc1: lr / c1, ic2: 1 / c2, eps: AdamEps, shrink: lr * weightDecay}
	if weightDecay != 0 {
		k.decay = 1
	}
	return k
}

// adamUpdate is, per element, the decoupled weight decay p −= shrink·p
// (when k.decay; fairseq's Adam, Loshchilov & Hutter's fix of L2 in Adam)
// and then one Adam step p −= lr·m̂/(√v̂+ε) with m̂ = m/c1, v̂ = v/c2, in one
// pass over the memory (the decay was a pass of its own, as long as the
// update's on the word LM). The decay's product is formed in float64: a
// float32 factor 1 − shrink (1 − 1e-7 at fairseq's lr and decay) is the
// nearest of float32's steps of 6e-8 near 1, off by up to half a step of
// the shrink. The explicit conversions forbid the compiler to fuse a
// multiply and an add (the Go spec allows it, and GOAMD64=v3 does it), so
// the Go loop and the kernels (plain multiplies and adds) give the same
// bits on every build.
func adamUpdate[T Float](p, g []T, m, v []float64, k *adamConsts) {
	for i := adamFast(p, g, m, v, k); i < len(p); i++ {
		if k.decay != 0 {
			p[i] -= T(k.shrink * float64(p[i]))
		}
		gi := float64(g[i]) * k.gscale
		m[i] = float64(k.b1*m[i]) + float64(k.b1c*gi)
		v[i] = float64(k.b2*v[i]) + float64(k.b2c*gi*gi)
		p[i] -= T(k.lrc1 * m[i] / (math.Sqrt(v[i]*k.ic2) + k.eps))
	}
}

// GradNorm is the global L2 norm of all gradients and whether every entry
// is finite.
func GradNorm(grads []*tensor.Dense) (norm float64, finite bool) {
	var s float64
	for _, g := range grads {
		s += DenseSumSq(g)
	}
	return math.Sqrt(s), !math.IsNaN(s) && !math.IsInf(s, 0)
}

// DenseSumSq is SumSq of a float32 or float64 tensor's values.
func DenseSumSq(d *tensor.Dense) float64 {
	switch d.Dtype() {
	case tensor.Float32:
		return SumSq(d.Float32s())
	case tensor.Float64:
		return SumSq(d.Float64s())
	}
	return 0
}

// SumSq is Σ x[i]² in float64 (the gradient norm's, and gw_norm's).
func SumSq[T Float](x []T) float64 {
	k, s := sumSqFast(x)
	for _, v := range x[k:] {
		s += float64(v) * float64(v)
	}
	return s
}

// ClipScale is the factor that brings a global gradient norm down to clip
// (1 when clip ≤ 0 or the norm is already within it).
func ClipScale(norm, clip float64) float64 {
	if clip <= 0 || norm <= clip {
		return 1
	}
	return clip / norm
}

// LearningRate is the schedule: linear warmup from lr/warmup to lr over
// the first warmup steps, then inverse-square-root decay,
// lr·√(warmup/step). warmup = 0 means a constant lr. step is 1-based.
func LearningRate(lr float64, warmup, step int) float64 {
	if warmup <= 0 {
		return lr
	}
	s, w := float64(step), float64(warmup)
	return lr * math.Min(s/w, math.Sqrt(w/s))
}
