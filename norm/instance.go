package norm

import "math"

// float is the element type of the tensors a layer works on. Statistics
// are accumulated in float64 for both.
type float interface{ ~float32 | ~float64 }

// instance is one use of a layer: one Apply on one graph, or the layer's
// float64 reference entry points. The forward pass leaves here what the
// backward pass of the same step needs (per-row or per-feature divisors,
// the mask it used), so that several graphs sharing the layer do not
// disturb each other's tapes. Running state stays in the Layer.
type instance struct {
	l *Layer

	// set by the forward pass, read by the backward pass
	n, nReal  int
	mask      []bool // copy of the layer's mask at the forward; nil = all real
	maskBuf   []bool
	training  bool
	statPath  bool // per-feature variants: batch statistics were used (training, n > 0)
	tapStats  bool
	tapGrad   bool
	forwarded bool

	rowMu, rowA, rowS []float64 // per row: mean, 1/D, s (row family)
	rowSS             []float64 // per row: Σ(x-μ)² of the forward (Σx̂² = rowSS·a²)
	colMu, colA       []float64 // per feature: subtracted mean, 1/D of the forward
	colAb             []float64 // powernorm: 1/D_b of the backward
	colPsiB           []float64 // powernorm: ψ_B² of the batch (for Γ = ψ_B²/D_f²)
	gsA               []float64 // GroupScaling 1/D per (row, group), n×G
	unitMu, unitA     []float64 // per unit (sample-major): mean, 1/D (groupnorm, instancenorm)
	unitSS            []float64 // per unit: Σ(x-μ)² of the forward
	unitReal          []int     // per sample: its real rows (0: all padding)
	unitMuF, unitAF   []float64 // scratch: one sample's unit μ and 1/D at each feature

	// scratch, reused between steps
	acc1, acc2, acc3, acc4 []float64 // per-feature accumulators
	rowBuf                 []float64
	rowGv                  []float64 // per row: ‖g_σ²,i‖² (colBackward's whole-matrix path)
	gam64, bet64           []float64 // γ/β as float64, converted once per pass
	dgamma, dbeta          []float64 // filled by the backward pass
}

func (in *instance) real(i int) bool { return in.mask == nil || in.mask[i] }

// grow returns s resized to n, reusing its backing array when it can.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func zero(s []float64) {
	for i := range s {
		s[i] = 0
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// prepare sizes the per-step buffers for n rows.
func (in *instance) prepare(n int) {
	d := in.l.d
	in.n = n
	in.nReal = n
	if in.mask != nil {
		in.nReal = 0
		for _, r := range in.mask {
			if r {
				in.nReal++
			}
		}
	}
	if in.l.cfg.Kind.RowFamily() {
		in.rowMu = grow(in.rowMu, n)
		in.rowA = grow(in.rowA, n)
		in.rowS = grow(in.rowS, n)
		in.rowSS = grow(in.rowSS, n)
	} else if in.l.cfg.Kind.UnitFamily() {
		units := n / in.l.unitRows * in.l.unitGroups
		in.unitMu = grow(in.unitMu, units)
		in.unitA = grow(in.unitA, units)
		in.unitSS = grow(in.unitSS, units)
		if cap(in.unitReal) < n/in.l.unitRows {
			in.unitReal = make([]int, n/in.l.unitRows)
		}
		in.unitReal = in.unitReal[:n/in.l.unitRows]
		in.unitMuF = grow(in.unitMuF, d)
		in.unitAF = grow(in.unitAF, d)
	} else {
		in.colMu = grow(in.colMu, d)
		in.colA = grow(in.colA, d)
		in.colAb = grow(in.colAb, d)
		in.colPsiB = grow(in.colPsiB, d)
	}
	if g := in.l.groups; g > 0 {
		in.gsA = grow(in.gsA, n*g)
	}
	in.acc1 = grow(in.acc1, d)
	in.acc2 = grow(in.acc2, d)
	in.acc3 = grow(in.acc3, d)
	in.acc4 = grow(in.acc4, d)
	in.rowBuf = grow(in.rowBuf, d)
	in.dgamma = grow(in.dgamma, d)
	in.dbeta = grow(in.dbeta, d)
}
