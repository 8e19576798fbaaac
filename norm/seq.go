package norm

import (
	"fmt"

	"github.com/normtop/normtop/normspec"
)

// Seq applies a per-row layer (the LayerNorm family, RMSNorm, none) inside
// a recurrence: an LSTM's N_h and N_c (docs/math.md §10) normalise rows whose
// inputs exist only once the previous time step is done, so the rows of one
// training step arrive a time step at a time, forward and then backward.
//
// A row's forward and backward depend on that row alone, so Seq keeps one
// instance over all n rows of the step (time-major, chosen by the caller)
// and runs the kernels on contiguous row ranges (ForwardRows,
// BackwardRows) without touching the layer's state or taps. Once every row
// is done, FinishForward and FinishBackward run the ordinary step over all
// n rows: the same kernels, so the outputs are rewritten with the same
// values, and the step counter, the taps and dγ, dβ come out exactly as for
// an Apply over those rows. The mask is the caller's (in the caller's row
// order), not the layer's SetMask.
type Seq struct {
	l    *Layer
	in   *instance
	view instance // a window of in's per-row buffers; its own scratch
	mask []bool
}

// NewSeq returns a Seq on l, or an error for a variant whose statistics are
// not per row (the batch-statistics family would need per-time-step
// statistics, a different layer).
func (l *Layer) NewSeq() (*Seq, error) {
	if k := l.cfg.Kind; !k.RowFamily() && k != normspec.None {
		return nil, fmt.Errorf("norm: %s: a recurrent site takes per-row variants only (layernorm family, rmsnorm, none)", l.label())
	}
	return &Seq{l: l, in: l.newInstance(), view: instance{l: l}}, nil
}

// Layer is the layer the Seq applies.
func (s *Seq) Layer() *Layer { return s.l }

// Begin starts a step of n rows; real marks the real ones (nil: all real).
// It sizes the per-row buffers and changes no state.
func (s *Seq) Begin(n int, real []bool) error {
	if real != nil && len(real) != n {
		return fmt.Errorf("norm: %s: mask has %d rows, want %d", s.l.label(), len(real), n)
	}
	if real == nil {
		s.mask = nil
		s.in.mask = nil
	} else {
		s.mask = append(s.mask[:0], real...)
		s.in.mask = s.mask
	}
	s.in.training = s.l.training
	s.in.prepare(n)
	s.in.forwarded = false
	return nil
}

// window points the view at rows [lo, hi) of the step.
func (s *Seq) window(lo, hi int) error {
	if lo < 0 || hi > s.in.n || lo > hi {
		return fmt.Errorf("norm: %s: rows [%d, %d) outside the step's %d", s.l.label(), lo, hi, s.in.n)
	}
	v, in := &s.view, s.in
	v.n, v.nReal, v.training, v.tapStats, v.tapGrad = hi-lo, hi-lo, false, false, false
	v.mask = nil
	if in.mask != nil {
		v.mask = in.mask[lo:hi]
	}
	if s.l.cfg.Kind.RowFamily() {
		v.rowMu, v.rowA, v.rowS, v.rowSS = in.rowMu[lo:hi], in.rowA[lo:hi], in.rowS[lo:hi], in.rowSS[lo:hi]
	}
	d := s.l.d
	v.acc1, v.acc2, v.acc3, v.acc4 = grow(v.acc1, d), grow(v.acc2, d), grow(v.acc3, d), grow(v.acc4, d)
	v.rowBuf, v.dgamma, v.dbeta = grow(v.rowBuf, d), grow(v.dgamma, d), grow(v.dbeta, d)
	return nil
}

// ForwardRows normalises rows [lo, hi) of x into y (x, y hold all n rows).
func ForwardRows[T float](s *Seq, x, gam, bet, y []T, lo, hi int) error {
	if err := s.window(lo, hi); err != nil {
		return err
	}
	d := s.l.d
	xr, yr := x[lo*d:hi*d], y[lo*d:hi*d]
	if s.l.cfg.Kind == normspec.None {
		copy(yr, xr)
		return nil
	}
	rowForward(&s.view, xr, gam, bet, yr)
	return nil
}

// BackwardRows computes dx of rows [lo, hi) for upstream gradient g, after
// ForwardRows of the same rows: what the layer's own backward gives them
// (dx = 0 on padding rows for the row family; none passes g through).
func BackwardRows[T float](s *Seq, x, gam, g, dx []T, lo, hi int) error {
	if err := s.window(lo, hi); err != nil {
		return err
	}
	d := s.l.d
	xr, gr, dr := x[lo*d:hi*d], g[lo*d:hi*d], dx[lo*d:hi*d]
	if s.l.cfg.Kind == normspec.None { // the identity, as the layer's backward
		copy(dr, gr)
		return nil
	}
	rowBackward(&s.view, xr, gam, gr, dr)
	return nil
}

// FinishForward runs the layer's forward step over all n rows: in training
// mode it advances the step counter and fills the Stats and Params taps.
// y is rewritten with the values ForwardRows gave it.
func FinishForward[T float](s *Seq, x, gam, bet, y []T) error {
	saved := s.l.mask
	s.l.mask = s.mask
	err := forward(s.in, x, gam, bet, y, s.in.n)
	s.l.mask = saved
	return err
}

// FinishBackward runs the layer's backward over all n rows (the Grad taps)
// and returns dγ and dβ (nil for variants without them), valid until the
// next step. dx is rewritten with the values BackwardRows gave it.
func FinishBackward[T float](s *Seq, x, gam, g, dx []T) (dgamma, dbeta []float64, err error) {
	if err := backward(s.in, x, gam, g, dx, s.in.n); err != nil {
		return nil, nil, err
	}
	if !s.l.cfg.Kind.HasAffine() {
		return nil, nil, nil
	}
	return s.in.dgamma, s.in.dbeta, nil
}
