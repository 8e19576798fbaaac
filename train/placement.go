package train

import (
	"fmt"
	"math"
	"strings"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Placement is where the norms sit in a Transformer block (docs/math.md §9).
// With F a sub-layer (attention or FFN) and LN the run's variant:
//
//	pre       x + F(LN(x))            a final norm after the last block
//	post      LN(x + F(x))            no final norm (the original Transformer)
//	sandwich  x + LN₂(F(LN₁(x)))      a second norm on each sub-layer's output; final norm
//	deepnorm  LN(α·x + F(x))          α = (2N)^{1/4}, β-scaled Xavier init; no final norm
//
// The empty Placement is pre, the default of every block model.
type Placement string

const (
	PlacePre      Placement = "pre"
	PlacePost     Placement = "post"
	PlaceSandwich Placement = "sandwich"
	PlaceDeepNorm Placement = "deepnorm"
)

// Placements lists the placements in the order help texts show them.
var Placements = []Placement{PlacePre, PlacePost, PlaceSandwich, PlaceDeepNorm}

// ParsePlacement checks a --placement value.
func ParsePlacement(s string) (Placement, error) {
	for _, p := range Placements {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("placement %q: want %s", s, placementNames())
}

func placementNames() string {
	names := make([]string, len(Placements))
	for i, p := range Placements {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// Or returns p, or pre when p is empty.
func (p Placement) Or() Placement {
	if p == "" {
		return PlacePre
	}
	return p
}

// normsResidual: the norm is applied to the residual sum (post, deepnorm),
// so the stream between blocks is normalised and no final norm follows.
func (p Placement) normsResidual() bool { p = p.Or(); return p == PlacePost || p == PlaceDeepNorm }

// finalNorm reports whether the model ends with a "final" norm site.
func (p Placement) finalNorm() bool { return !p.normsResidual() }

// deepNormAlpha is DeepNorm's residual scale α = (2N)^{1/4} for N blocks
// (Wang et al. 2022, encoder-only / decoder-only form).
func deepNormAlpha(blocks int) float64 { return math.Pow(2*float64(blocks), 0.25) }

// deepNormBeta is DeepNorm's initialisation gain β = (8N)^{−1/4}.
func deepNormBeta(blocks int) float64 { return math.Pow(8*float64(blocks), -0.25) }

// xavierStd is the std of Xavier (Glorot) normal initialisation with gain:
// gain·√(2/(fan_in+fan_out)).
func xavierStd(gain float64, fanIn, fanOut int) float64 {
	return gain * math.Sqrt(2/float64(fanIn+fanOut))
}

// scalarConst is x as a constant node of dtype dt (DeepNorm's α).
func scalarConst(dt tensor.Dtype, x float64) *G.Node {
	if dt == tensor.Float32 {
		return G.NewConstant(float32(x))
	}
	return G.NewConstant(x)
}
