package norm

import "fmt"

// The float64 reference entry points run the same kernels as the ops on
// plain row-major slices, with the layer's γ/β, mask, mode, running state
// and taps, exactly as one training or inference step of the op would.

// Forward64 computes y (n×d) from x (n×d).
func (l *Layer) Forward64(x []float64, n int, y []float64) error {
	if l.ref == nil {
		l.ref = l.newInstance()
	}
	g, b := l.params64()
	return forward(l.ref, x, g, b, y, n)
}

// Backward64 computes dx (n×d) and, for variants with γ/β, dγ and dβ (d
// each; may be nil otherwise) for upstream gradient g, after a Forward64 on
// the same x.
func (l *Layer) Backward64(x, g []float64, n int, dx, dgamma, dbeta []float64) error {
	if l.ref == nil {
		return fmt.Errorf("norm: %s: Backward64 before Forward64", l.label())
	}
	gm, _ := l.params64()
	if err := backward(l.ref, x, gm, g, dx, n); err != nil {
		return err
	}
	if l.cfg.Kind.HasAffine() {
		if len(dgamma) != l.d || len(dbeta) != l.d {
			return fmt.Errorf("norm: %s: dγ/dβ buffers have %d/%d values, want %d", l.label(), len(dgamma), len(dbeta), l.d)
		}
		copy(dgamma, l.ref.dgamma)
		copy(dbeta, l.ref.dbeta)
	}
	return nil
}

// params64 returns γ/β as float64 (nil for variants without them).
func (l *Layer) params64() (g, b []float64) {
	if l.gamma == nil {
		return nil, nil
	}
	l.refG = toF64(l.refG, l.gamma.Data())
	l.refB = toF64(l.refB, l.beta.Data())
	return l.refG, l.refB
}

func toF64(dst []float64, data any) []float64 {
	switch v := data.(type) {
	case []float64:
		return append(dst[:0], v...)
	case []float32:
		dst = dst[:0]
		for _, f := range v {
			dst = append(dst, float64(f))
		}
		return dst
	}
	return dst[:0]
}
