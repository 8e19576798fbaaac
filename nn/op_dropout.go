package nn

import (
	"fmt"
	"math"

	"github.com/normtop/normtop/internal/graphop"
	G "gorgonia.org/gorgonia"
)

// Dropout zeroes each entry of x with probability p and scales the kept ones
// by 1/(1−p) (inverted dropout), so the eval graph, which leaves Dropout
// out, needs no rescaling. Masks come from rng, which the caller seeds: the
// runner gives every variant a Stream with the same seed, and since every
// variant's graph draws the same number of masks in the same order, every
// variant sees the same masks. gorgonia's own Dropout scales the gradient
// by 1/p and seeds from the clock; this one has neither problem.
//
// The returned *DropoutSite lets the caller switch it off (identity) with
// SetTraining(false).
func Dropout(x *G.Node, p float64, rng *Stream) (*G.Node, *DropoutSite, error) {
	if p < 0 || p >= 1 {
		return nil, nil, fmt.Errorf("dropout: p=%g, want 0 ≤ p < 1", p)
	}
	o := &DropoutSite{p: p, rng: rng, training: true}
	s := x.Shape()
	grad := func(_ G.Nodes, g *G.Node) (G.Nodes, error) {
		return graphop.One(graphop.Op{Kind: "DropoutGrad", Out: s, F32: mulMask[float32](o), F64: mulMask[float64](o)}.Apply(g))
	}
	n := s.TotalSize()
	y, err := graphop.Op{Kind: "Dropout", Out: s, Prepare: func() error { o.drawMask(n); return nil }, Grad: grad,
		F32: mulMask[float32](o), F64: mulMask[float64](o)}.Apply(x)
	return y, o, err
}

// DropoutSite is one dropout site's state: whether it drops, and the mask
// of its last forward, which its backward applies again.
type DropoutSite struct {
	p        float64
	rng      *Stream
	training bool
	freeze   bool // reuse the last mask (finite-difference tests only)
	// mask is the last forward's: 0 (dropped) or float32(keep) per entry.
	// Float32 halves the bytes the forward writes and both passes read, and
	// x·float32(keep) is what the float32 kernel multiplied by before; the
	// float64 kernel multiplies by keep itself where the entry is not 0.
	mask []float32
	keep float64 // 1/(1−p) while dropping, else 1
}

// SetTraining switches between dropping (true) and the identity (false).
func (o *DropoutSite) SetTraining(on bool) { o.training = on }

func (o *DropoutSite) drawMask(n int) {
	if o.freeze && len(o.mask) == n {
		return
	}
	if cap(o.mask) < n {
		o.mask = make([]float32, n)
	}
	o.mask = o.mask[:n]
	if !o.training || o.p == 0 {
		o.keep = 1
		for i := range o.mask {
			o.mask[i] = 1
		}
		return
	}
	o.keep = 1 / (1 - o.p)
	keep := float32(o.keep)
	cut, redraw := dropCut(o.p)
	// the draws come in blocks of at most the entries left, each entry
	// takes one or more in turn, so no draw is taken that the entries do
	// not use and the stream stays where Int63 per entry leaves it
	var buf [256]uint64
	next, have := 0, 0
	mask, keepBits := o.mask, math.Float32bits(keep)
	for i := range mask {
		var x int64
		for {
			if next == have {
				have, next = min(len(buf), len(mask)-i), 0
				o.rng.fill(buf[:have])
			}
			x = int64(buf[next] & (1<<63 - 1)) // Int63's bits
			next++
			if x < redraw { // math/rand draws again once in 2⁵³ draws
				break
			}
		}
		// keep's bits where x ≥ cut, else +0's, without a branch (which
		// would guess wrong at every p-th entry): cut−1−x < 0 ⇔ x ≥ cut,
		// and with both in [0, 2⁶³) the difference cannot overflow
		mask[i] = math.Float32frombits(keepBits & uint32((cut-1-x)>>63))
	}
}

// dropCut turns rand.Float64() < p into integers over the Int63 draw it
// is made of (the mask used to draw Float64s from a rand.Rand of the seed), so the mask reads the same stream and makes the same
// decisions without a conversion and a division per entry. Float64 is
// float64(x)/2⁶³, drawn again when that rounds to 1; float64(x) rounds to
// nearest and is monotone in x, and dividing by 2⁶³ is exact, so
//
//	Float64 draws again ⇔ float64(x) = 2⁶³ ⇔ x ≥ redraw,
//	Float64() < p      ⇔ float64(x) < p·2⁶³ ⇔ x < cut,
//
// with redraw and cut the least x whose float64 reaches 2⁶³ and p·2⁶³
// (p·2⁶³ is exact too). Both are found by bisection on the conversion
// itself; TestDropCut checks them against Float64 at and around every
// boundary.
func dropCut(p float64) (cut, redraw int64) {
	// least x ≥ 0 with float64(x) ≥ bound; bound ≤ 2⁶³ = float64(MaxInt64)
	least := func(bound float64) int64 {
		lo, hi := int64(0), int64(math.MaxInt64)
		for lo < hi {
			mid := lo + (hi-lo)/2
			if float64(mid) >= bound {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return lo
	}
	return least(p * (1 << 63)), least(1 << 63)
}

// mulMask is x times the site's last mask, entry by entry: the forward
// (x the input) and the backward (x the upstream gradient).
func mulMask[T Float](o *DropoutSite) graphop.Kernel[T] {
	return func(out []T, in [][]T) error {
		mulMaskRow(in[0], o.mask, o.keep, out)
		return nil
	}
}

// mulMaskRow sets out = x·mask: float32 data times the mask's entries,
// float64 data times keep where the entry is not 0 and times 0 where it
// is (x·0, not 0: a NaN or an infinity stays NaN, a negative x gives −0,
// as the float64 mask did).
func mulMaskRow[T Float](x []T, mask []float32, keep float64, out []T) {
	switch o := any(out).(type) {
	case []float32:
		x := any(x).([]float32)
		for k := mulMaskFast(x, mask, o); k < len(x); k++ {
			o[k] = x[k] * mask[k]
		}
	case []float64:
		x := any(x).([]float64)
		for k, v := range x {
			f := keep
			if mask[k] == 0 {
				f = 0
			}
			o[k] = v * f
		}
	}
}
