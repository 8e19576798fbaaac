package normspec

// TapMask selects which tap groups a layer computes on its next training
// step. Probes decide (by their intervals) and the trainer sets the mask
// before each step, so that switched-off probes cost nothing.
type TapMask uint8

const (
	TapStats  TapMask = 1 << iota // per-feature batch stats of the input, running stats before the update, input mean/std/max|x|
	TapGrad                       // g_mu, g_var, g_psi2 norms and the Theorem-1 moments (filled by the backward pass)
	TapParams                     // ‖γ-1‖, ‖β‖
	TapAll    = TapStats | TapGrad | TapParams
)

// Taps are the per-step values a norm layer exposes to the probes
// (docs/math.md §5). A layer owns one Taps value and overwrites it on every
// training step; the forward pass fills the Stats group, the backward pass the
// Grad group. Slices are reused between steps: a consumer that keeps them
// past the next step must copy them. Fields not applicable to the variant, or
// whose group was masked off, are NaN (scalars) or nil (slices).
type Taps struct {
	Step int     // the layer's training-step counter (t for PowerNorm), 1-based
	N, D int     // real rows and features of the last training batch
	Mask TapMask // the groups that were computed

	// Stats group (forward). Batch statistics are per feature over the real
	// rows of the tensor the variant normalises (after GroupScaling for PN),
	// computed for every variant so that probes can keep shadow EMAs.
	BatchMean, BatchVar, BatchPsi2 []float64
	// The layer's own running statistics before this batch's update; nil for
	// variants without them (all but batchnorm, pn-v, powernorm).
	RunMean, RunVar, RunPsi2 []float64
	InMean, InStd, InMaxAbs  float64
	AdaFrac                  float64 // adanorm: fraction of entries with |y| ≥ 1/k
	PNGamma                  float64 // powernorm: Γ (filled in backward, with ν)

	// Grad group (backward).
	GMu, GVar, GPsi2 float64 // norms as defined in docs/math.md §5
	DxMean, DxVar    float64 // Theorem 1: per-row mean/var of dx, averaged over real rows
	DyMean, DyVar    float64 // Theorem 1: per-row mean/var of g, averaged over real rows
	NuNorm           float64 // powernorm: ‖ν_t‖₂

	// Params group.
	GammaDrift, BetaNorm float64

	// Recurrent sites (Stats group, filled by the LSTM op on its lstm<i>.h
	// site, NaN elsewhere; docs/math.md §10): HNorm is the mean over real
	// (sample, t) of ‖h_t‖₂/√H, HNormCV the coefficient of variation of
	// ‖h_t‖₂/√H over a sample's real time steps, averaged over samples.
	HNorm, HNormCV float64

	// NonFinite is set when a NaN or Inf was seen in the input, the upstream
	// gradient or the statistics this step, so the divergence guard can stop
	// the variant before the bad values reach the weights.
	NonFinite bool
}
