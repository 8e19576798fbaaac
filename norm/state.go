package norm

import (
	"fmt"
	"math"
)

// State is everything a layer carries from step to step, for checkpoints:
// the step counter (PowerNorm's t), BatchNorm's running mean and variance,
// the running ψ² of PN-V and PowerNorm, and PowerNorm's backward EMA ν.
// Slices not used by the variant are nil.
type State struct {
	Variant string // registry name, checked by SetState
	Step    int
	Mean    []float64 `json:",omitempty"`
	Var     []float64 `json:",omitempty"`
	Psi2    []float64 `json:",omitempty"`
	Nu      []float64 `json:",omitempty"`
}

// State returns a copy of the layer's state.
func (l *Layer) State() State {
	cp := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		return append([]float64(nil), v...)
	}
	return State{Variant: l.cfg.Name(), Step: l.step, Mean: cp(l.runMean), Var: cp(l.runVar), Psi2: cp(l.runPsi2), Nu: cp(l.nu)}
}

// SetState restores a state taken from a layer of the same variant and
// width. Nothing changes when it returns an error.
func (l *Layer) SetState(s State) error {
	if s.Variant != l.cfg.Name() {
		return fmt.Errorf("norm: %s: state is for variant %q", l.label(), s.Variant)
	}
	if s.Step < 0 {
		return fmt.Errorf("norm: %s: state step %d < 0", l.label(), s.Step)
	}
	check := func(name string, have, want []float64, positive bool) error {
		if (have == nil) != (want == nil) || len(have) != len(want) {
			return fmt.Errorf("norm: %s: state %s has %d values, want %d", l.label(), name, len(have), len(want))
		}
		for _, v := range have {
			if math.IsNaN(v) || math.IsInf(v, 0) || (positive && v < 0) {
				return fmt.Errorf("norm: %s: state %s holds %v", l.label(), name, v)
			}
		}
		return nil
	}
	for _, c := range []struct {
		name       string
		have, want []float64
		positive   bool
	}{{"Mean", s.Mean, l.runMean, false}, {"Var", s.Var, l.runVar, true}, {"Psi2", s.Psi2, l.runPsi2, true}, {"Nu", s.Nu, l.nu, false}} {
		if err := check(c.name, c.have, c.want, c.positive); err != nil {
			return err
		}
	}
	l.step = s.Step
	copy(l.runMean, s.Mean)
	copy(l.runVar, s.Var)
	copy(l.runPsi2, s.Psi2)
	copy(l.nu, s.Nu)
	return nil
}
