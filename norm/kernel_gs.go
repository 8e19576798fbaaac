package norm

import (
	"fmt"
	"math"
)

// GroupScaling (docs/math.md §3) rescales each contiguous block of m = d/G
// features of a row by 1/√(mean(x_g²)+ε). It is row-local, so the kernels
// keep only the per-(row, group) factors and recompute the scaled values.

// gsScales fills in.gsA with the GroupScaling factors of every row and
// reports whether a real row had a non-finite sum of squares.
func gsScales[T float](in *instance, x []T) (nonFinite bool) {
	d, G := in.l.d, in.l.groups
	m := d / G
	eps := in.l.cfg.Eps
	for i := 0; i < in.n; i++ {
		for gi := 0; gi < G; gi++ {
			ss := 0.0
			for _, v := range x[i*d+gi*m : i*d+(gi+1)*m] {
				f := float64(v)
				ss += f * f
			}
			if !finite(ss) && in.real(i) {
				nonFinite = true
			}
			in.gsA[i*G+gi] = 1 / math.Sqrt(ss/float64(m)+eps)
		}
	}
	return nonFinite
}

// layout is the group structure the per-feature kernels iterate over:
// G groups of m features, with scale(i, g) = 1 without GroupScaling.
func (in *instance) layout() (G, m int) {
	if in.l.groups == 0 {
		return 1, in.l.d
	}
	return in.l.groups, in.l.d / in.l.groups
}

func (in *instance) scale(i, gi int) float64 {
	if in.l.groups == 0 {
		return 1
	}
	return in.gsA[i*in.l.groups+gi]
}

// gsBackRow turns the gradient w.r.t. GroupScaling's output (dxs, one row)
// into the gradient w.r.t. its input: dx_g = (1/D)[dxs_g - out_g·mean(dxs⊙out)].
func gsBackRow[T float](in *instance, i int, xr []T, dxs []float64, dr []T) {
	if in.l.groups == 0 {
		for k, v := range dxs {
			dr[k] = T(v)
		}
		return
	}
	G, m := in.layout()
	fm := float64(m)
	for gi := 0; gi < G; gi++ {
		sc := in.gsA[i*G+gi]
		lo, hi := gi*m, (gi+1)*m
		dot := 0.0
		for k := lo; k < hi; k++ {
			dot += dxs[k] * float64(xr[k]) * sc
		}
		c := dot / fm
		for k := lo; k < hi; k++ {
			dr[k] = T(sc * (dxs[k] - float64(xr[k])*sc*c))
		}
	}
}

// GroupScaling is the float64 reference of §3: out = GroupScaling_G(x) for
// row-major n×d x.
func GroupScaling(x []float64, n, d, groups int, eps float64, out []float64) error {
	if err := gsCheck(len(x), len(out), n, d, groups); err != nil {
		return err
	}
	m := d / groups
	for i := 0; i < n; i++ {
		for gi := 0; gi < groups; gi++ {
			blk := x[i*d+gi*m : i*d+(gi+1)*m]
			ss := 0.0
			for _, v := range blk {
				ss += v * v
			}
			a := 1 / math.Sqrt(ss/float64(m)+eps)
			for k, v := range blk {
				out[i*d+gi*m+k] = v * a
			}
		}
	}
	return nil
}

// GroupScalingBackward is the float64 reference gradient of GroupScaling:
// dx for upstream gradient g.
func GroupScalingBackward(x, g []float64, n, d, groups int, eps float64, dx []float64) error {
	if err := gsCheck(len(x), len(dx), n, d, groups); err != nil {
		return err
	}
	if len(g) != n*d {
		return fmt.Errorf("norm: GroupScaling: gradient has %d values, want %d×%d", len(g), n, d)
	}
	m := d / groups
	fm := float64(m)
	for i := 0; i < n; i++ {
		for gi := 0; gi < groups; gi++ {
			lo := i*d + gi*m
			ss := 0.0
			for _, v := range x[lo : lo+m] {
				ss += v * v
			}
			a := 1 / math.Sqrt(ss/fm+eps)
			dot := 0.0
			for k := lo; k < lo+m; k++ {
				dot += g[k] * x[k] * a
			}
			for k := lo; k < lo+m; k++ {
				dx[k] = a * (g[k] - x[k]*a*dot/fm)
			}
		}
	}
	return nil
}

func gsCheck(nx, nout, n, d, groups int) error {
	if n < 0 || d < 1 || groups < 1 || d%groups != 0 {
		return fmt.Errorf("norm: GroupScaling: d=%d must be ≥ 1 and divisible by groups=%d", d, groups)
	}
	if nx != n*d || nout != n*d {
		return fmt.Errorf("norm: GroupScaling: buffers have %d and %d values, want %d×%d", nx, nout, n, d)
	}
	return nil
}
