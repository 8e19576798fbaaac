package probes

import (
	"fmt"
	"github.com/normtop/normtop/normspec"
)

// Intervals says how often each probe group is measured, in training steps.
// 0 switches a group off. A group with interval k is due at steps k, 2k, 3k, ...
// (steps are 1-based, so interval 1 is every step).
type Intervals struct {
	Stats    int // batch vs running statistics, input mean/std/max|x|, ada_frac, pn_gamma
	Grad     int // g_mu/g_var/g_psi2, Theorem-1 moments, pn_nu
	Params   int // gamma_drift, beta_norm
	Spectrum int // embedding singular values (off the training goroutine)
}

// DefaultIntervals measures the cheap groups every step and the embedding
// spectrum every 100 steps.
func DefaultIntervals() Intervals { return Intervals{Stats: 1, Grad: 1, Params: 1, Spectrum: 100} }

func due(interval, step int) bool { return interval > 0 && step > 0 && step%interval == 0 }

// mask returns the norm tap groups due at step.
func (iv Intervals) mask(step int) normspec.TapMask {
	var m normspec.TapMask
	if due(iv.Stats, step) {
		m |= normspec.TapStats
	}
	if due(iv.Grad, step) {
		m |= normspec.TapGrad
	}
	if due(iv.Params, step) {
		m |= normspec.TapParams
	}
	return m
}

// Validate reports a negative interval as an error naming the group.
func (iv Intervals) Validate() error {
	for _, g := range []struct {
		name string
		v    int
	}{{"stats", iv.Stats}, {"grad", iv.Grad}, {"params", iv.Params}, {"spectrum", iv.Spectrum}} {
		if g.v < 0 {
			return fmt.Errorf("probe interval %s=%d: must be ≥ 0 (0 switches the group off)", g.name, g.v)
		}
	}
	return nil
}
