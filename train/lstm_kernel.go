package train

import (
	"errors"
	"math"

	"github.com/normtop/normtop/nn"
	"github.com/normtop/normtop/norm"
	"github.com/normtop/normtop/normspec"
)

// lstmState is what the LSTM forward keeps for its backward, and the
// backward's scratch and results. Buffers are time-major: row t·B+b is
// sample b at step t, so a time step's rows are contiguous for the norm
// kernels and the per-step matrix products. Reused from step to step.
type lstmState[T nn.Float] struct {
	mask       []bool // time-major real flags; nil when every row is real
	ah, nh     []T    // T·B × 4H: h_{t−1}·W_h and N_h of it
	act        []T    // T·B × 4H: σ(i), σ(f), σ(o), tanh(g); 0 on padding
	c, nc, tc  []T    // T·B × H: c_t (N_c's input), N_c(c_t), tanh(N_c(c_t))
	hp         []T    // T·B × H: h_{t−1}, the rows W_h multiplies
	zeros      []T    // H zeros: c_{−1}
	dnh, dah   []T    // T·B × 4H: gradient at N_h's output (the gates') and input
	dnc, dcn   []T    // T·B × H: gradient at N_c's output and input
	dh, dc     []T    // B × H: running gradients of h_{t−1}, c_{t−1}
	dhx        []T    // B × H: dah_t·W_hᵀ
	dwh, db    []T    // gradients of W_h and b
	dgh, dbh   []float64
	dgc, dbc   []float64
	hn         []float64 // T: one sample's ‖h_t‖₂/√H (h_norm_cv)
	backwarded bool
}

func lstmStateOf[T nn.Float](o *lstmSeq) *lstmState[T] {
	st, ok := o.st.(*lstmState[T])
	if !ok {
		st = &lstmState[T]{}
		o.st = st
	}
	n, h := o.b*o.t, o.h
	size := func(s *[]T, k int) {
		if len(*s) != k {
			*s = make([]T, k)
		}
	}
	for _, s := range []*[]T{&st.ah, &st.nh, &st.act, &st.dnh, &st.dah} {
		size(s, n*4*h)
	}
	for _, s := range []*[]T{&st.c, &st.nc, &st.tc, &st.hp, &st.dnc, &st.dcn} {
		size(s, n*h)
	}
	for _, s := range []*[]T{&st.dh, &st.dc, &st.dhx} {
		size(s, o.b*h)
	}
	size(&st.zeros, h)
	if len(st.hn) != o.t {
		st.hn = make([]float64, o.t)
	}
	size(&st.dwh, h*4*h)
	size(&st.db, 4*h)
	st.mask = st.mask[:0]
	if o.real != nil && *o.real != nil {
		for t := 0; t < o.t; t++ {
			for b := 0; b < o.b; b++ {
				st.mask = append(st.mask, (*o.real)[b*o.t+t])
			}
		}
	}
	return st
}

func (st *lstmState[T]) real(r int) bool { return len(st.mask) == 0 || st.mask[r] }

// maskOrNil is the time-major mask for the norm layers (nil: all real).
func (st *lstmState[T]) maskOrNil() []bool {
	if len(st.mask) == 0 {
		return nil
	}
	return st.mask
}

// sigmoidRow replaces x by σ(x) = 1/(1 + e^(−x)) and tanhRow by tanh(x) =
// 1 − 2/(e^(2x) + 1), both through ExpShiftSum, whose float32 kernel does
// the exponentials eight lanes at a time (they were 40% of the LSTM's step
// as math.Exp and math.Tanh). Saturation is exact: e^(±large) = +Inf or 0
// gives 0, 1 and ±1.
func sigmoidRow[T nn.Float](x []T) {
	for k := range x {
		x[k] = -x[k]
	}
	nn.ExpShiftSum(x, x, 0)
	for k, e := range x {
		x[k] = T(1 / (1 + float64(e)))
	}
}

func tanhRow[T nn.Float](x []T) {
	for k := range x {
		x[k] *= 2
	}
	nn.ExpShiftSum(x, x, 0)
	for k, e := range x {
		x[k] = T(1 - 2/(float64(e)+1))
	}
}

func lstmForward[T nn.Float](o *lstmSeq, a lstmArgs[T], out []T) error {
	st := lstmStateOf[T](o)
	st.backwarded = false
	B, H, H4 := o.b, o.h, 4*o.h
	n := B * o.t
	if err := o.nh.Begin(n, st.maskOrNil()); err != nil {
		return err
	}
	if err := o.nc.Begin(n, st.maskOrNil()); err != nil {
		return err
	}
	clear(st.hp[:B*H])
	wh := nn.Mat[T]{Data: a.wh, Rows: H, Cols: H4, Stride: H4}
	for t := 0; t < o.t; t++ {
		lo, hi := t*B, (t+1)*B
		hp := nn.Mat[T]{Data: st.hp[lo*H : hi*H], Rows: B, Cols: H, Stride: H}
		nn.Mul(false, false, 1, hp, wh, 0, nn.Mat[T]{Data: st.ah[lo*H4 : hi*H4], Rows: B, Cols: H4, Stride: H4})
		if err := norm.ForwardRows(o.nh, st.ah, a.gamH, a.betH, st.nh, lo, hi); err != nil {
			return err
		}
		for b := 0; b < B; b++ {
			lstmCell(o, st, a, t, b)
		}
		if err := norm.ForwardRows(o.nc, st.c, a.gamC, a.betC, st.nc, lo, hi); err != nil {
			return err
		}
		for b := 0; b < B; b++ {
			lstmOutput(o, st, out, t, b)
		}
	}
	if err := norm.FinishForward(o.nh, st.ah, a.gamH, a.betH, st.nh); err != nil {
		return err
	}
	if err := norm.FinishForward(o.nc, st.c, a.gamC, a.betC, st.nc); err != nil {
		return err
	}
	if l := o.nh.Layer(); l.Training() && l.Taps().Mask&normspec.TapStats != 0 {
		l.Taps().HNorm, l.Taps().HNormCV = hNorms(st, out, o.b, o.t, o.h)
	}
	return nil
}

// lstmCell computes sample b's gates and c_t at step t (c carried on a
// padding step).
func lstmCell[T nn.Float](o *lstmSeq, st *lstmState[T], a lstmArgs[T], t, b int) {
	H, H4 := o.h, 4*o.h
	r := t*o.b + b
	cprev := st.zeros
	if t > 0 {
		cprev = st.c[(r-o.b)*H : (r-o.b+1)*H]
	}
	c := st.c[r*H : (r+1)*H]
	act := st.act[r*H4 : (r+1)*H4]
	if !st.real(r) {
		copy(c, cprev)
		clear(act)
		return
	}
	x := a.xn[(b*o.t+t)*H4 : (b*o.t+t+1)*H4]
	nh := st.nh[r*H4 : (r+1)*H4]
	for k := 0; k < H4; k++ {
		act[k] = T(float64(x[k]) + float64(nh[k]) + float64(a.bias[k]))
	}
	sigmoidRow(act[:3*H])
	tanhRow(act[3*H:])
	for k := 0; k < H; k++ {
		c[k] = T(float64(act[H+k])*float64(cprev[k]) + float64(act[k])*float64(act[3*H+k]))
	}
}

// lstmOutput computes h_t = σ(o)⊙tanh(N_c(c_t)) of sample b (h carried on
// a padding step) into the output and into the next step's h_{t−1}.
func lstmOutput[T nn.Float](o *lstmSeq, st *lstmState[T], out []T, t, b int) {
	H := o.h
	r := t*o.b + b
	h := out[(b*o.t+t)*H : (b*o.t+t+1)*H]
	tc := st.tc[r*H : (r+1)*H]
	if st.real(r) {
		og := st.act[r*4*H+2*H : r*4*H+3*H]
		copy(tc, st.nc[r*H:(r+1)*H])
		tanhRow(tc)
		for k := range h {
			h[k] = og[k] * tc[k]
		}
	} else {
		clear(tc)
		copy(h, st.hp[r*H:(r+1)*H])
	}
	if t+1 < o.t {
		copy(st.hp[(r+o.b)*H:(r+o.b+1)*H], h)
	}
}

// hNorms are h_norm and h_norm_cv (docs/math.md §10) of the output h (batch-
// major): the mean of ‖h_t‖₂/√H over real (sample, t), and per sample the
// coefficient of variation (population std / mean) of ‖h_t‖₂/√H over its
// real steps, averaged over the samples with at least two real steps and
// a non-zero mean. NaN where nothing qualifies.
func hNorms[T nn.Float](st *lstmState[T], out []T, B, Tn, H int) (mean, cv float64) {
	var sum, cvSum float64
	var n, ns int
	for b := 0; b < B; b++ {
		xs := st.hn[:0]
		for t := 0; t < Tn; t++ {
			if !st.real(t*B + b) {
				continue
			}
			var ss float64
			for _, v := range out[(b*Tn+t)*H : (b*Tn+t+1)*H] {
				ss += float64(v) * float64(v)
			}
			xs = append(xs, math.Sqrt(ss/float64(H)))
		}
		var s1 float64
		for _, x := range xs {
			s1 += x
		}
		sum += s1
		n += len(xs)
		if len(xs) < 2 || s1 <= 0 {
			continue
		}
		m := s1 / float64(len(xs))
		var dev float64
		for _, x := range xs {
			dev += (x - m) * (x - m)
		}
		cvSum += math.Sqrt(dev/float64(len(xs))) / m
		ns++
	}
	mean, cv = math.NaN(), math.NaN()
	if n > 0 {
		mean = sum / float64(n)
	}
	if ns > 0 {
		cv = cvSum / float64(ns)
	}
	return mean, cv
}

// lstmBackward is backpropagation through time over the sequence: d xn
// into dx (batch-major, [B·T, 4H]); dW_h, db and the norms' dγ, dβ into the
// state for the read ops.
func lstmBackward[T nn.Float](o *lstmSeq, a lstmArgs[T], gout, dx []T) error {
	st, ok := o.st.(*lstmState[T])
	if !ok {
		return errors.New("backward without a forward pass")
	}
	B, H, H4 := o.b, o.h, 4*o.h
	clear(st.dh)
	clear(st.dc)
	wh := nn.Mat[T]{Data: a.wh, Rows: H, Cols: H4, Stride: H4}
	for t := o.t - 1; t >= 0; t-- {
		lo, hi := t*B, (t+1)*B
		for b := 0; b < B; b++ {
			lstmGradTanh(o, st, gout, t, b)
		}
		if err := norm.BackwardRows(o.nc, st.c, a.gamC, st.dnc, st.dcn, lo, hi); err != nil {
			return err
		}
		for b := 0; b < B; b++ {
			lstmGradGates(o, st, t, b)
		}
		if err := norm.BackwardRows(o.nh, st.ah, a.gamH, st.dnh, st.dah, lo, hi); err != nil {
			return err
		}
		dhx := nn.Mat[T]{Data: st.dhx, Rows: B, Cols: H, Stride: H}
		nn.Mul(false, true, 1, nn.Mat[T]{Data: st.dah[lo*H4 : hi*H4], Rows: B, Cols: H4, Stride: H4}, wh, 0, dhx)
		for b := 0; b < B; b++ {
			if st.real(lo + b) { // a padding step carries dh back unchanged
				copy(st.dh[b*H:(b+1)*H], st.dhx[b*H:(b+1)*H])
			}
		}
	}
	n := B * o.t
	// dW_h = Σ_t h_{t−1}ᵀ·dah_t in one product; db = Σ rows of d gates.
	nn.Mul(true, false, 1, nn.Mat[T]{Data: st.hp, Rows: n, Cols: H, Stride: H}, nn.Mat[T]{Data: st.dah, Rows: n, Cols: H4, Stride: H4},
		0, nn.Mat[T]{Data: st.dwh, Rows: H, Cols: H4, Stride: H4})
	clear(st.db)
	for r := 0; r < n; r++ {
		g := st.dnh[r*H4 : (r+1)*H4]
		for k, v := range g {
			st.db[k] += v
		}
		t, b := r/B, r%B
		copy(dx[(b*o.t+t)*H4:(b*o.t+t+1)*H4], g)
	}
	var err error
	if st.dgh, st.dbh, err = norm.FinishBackward(o.nh, st.ah, a.gamH, st.dnh, st.dah); err != nil {
		return err
	}
	if st.dgc, st.dbc, err = norm.FinishBackward(o.nc, st.c, a.gamC, st.dnc, st.dcn); err != nil {
		return err
	}
	st.backwarded = true
	return nil
}

// lstmGradTanh adds the upstream gradient of h_t to sample b's running dh
// and takes it through h = σ(o)⊙tanh(N_c(c)) to N_c's output.
func lstmGradTanh[T nn.Float](o *lstmSeq, st *lstmState[T], gout []T, t, b int) {
	H := o.h
	r := t*o.b + b
	dh := st.dh[b*H : (b+1)*H]
	for k, v := range gout[(b*o.t+t)*H : (b*o.t+t+1)*H] {
		dh[k] += v
	}
	dnc := st.dnc[r*H : (r+1)*H]
	if !st.real(r) {
		clear(dnc)
		return
	}
	og := st.act[r*4*H+2*H : r*4*H+3*H]
	tc := st.tc[r*H : (r+1)*H]
	for k := range dnc {
		x := float64(tc[k])
		dnc[k] = T(float64(dh[k]) * float64(og[k]) * (1 - x*x))
	}
}

// lstmGradGates takes sample b's gradient at step t to the gate
// pre-activations (d gates, N_h's upstream gradient) and to c_{t−1}.
func lstmGradGates[T nn.Float](o *lstmSeq, st *lstmState[T], t, b int) {
	H, H4 := o.h, 4*o.h
	r := t*o.b + b
	dg := st.dnh[r*H4 : (r+1)*H4]
	if !st.real(r) { // dc carries back unchanged
		clear(dg)
		return
	}
	cprev := st.zeros
	if t > 0 {
		cprev = st.c[(r-o.b)*H : (r-o.b+1)*H]
	}
	act := st.act[r*H4 : (r+1)*H4]
	dh, dc := st.dh[b*H:(b+1)*H], st.dc[b*H:(b+1)*H]
	dcn, tc := st.dcn[r*H:(r+1)*H], st.tc[r*H:(r+1)*H]
	for k := 0; k < H; k++ {
		i, f, og, g := float64(act[k]), float64(act[H+k]), float64(act[2*H+k]), float64(act[3*H+k])
		dcv := float64(dc[k]) + float64(dcn[k])
		do := float64(dh[k]) * float64(tc[k])
		dg[k] = T(dcv * g * i * (1 - i))
		dg[H+k] = T(dcv * float64(cprev[k]) * f * (1 - f))
		dg[2*H+k] = T(do * og * (1 - og))
		dg[3*H+k] = T(dcv * i * (1 - g*g))
		dc[k] = T(dcv * f)
	}
}
