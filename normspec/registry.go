package normspec

// OptionInfo describes one option of a variant spec.
type OptionInfo struct{ Name, Default, Help string }

// VariantInfo is one registry entry, as `normtop variants` prints it.
type VariantInfo struct {
	Name, Summary string
	Options       []OptionInfo
}

var (
	optConv = OptionInfo{"conv", "p", "statistics convention: p (biased var, √(v+ε); PyTorch, paper) or c (unbiased var, s+ε; AdaNorm code)"}
	optEps  = OptionInfo{"eps", "1e-5", "ε added to the variance (or to the std under conv=c)"}
	// optGroups is the layer-scale step the PowerNorm authors put before
	// BatchNorm and PN-V (docs/math.md §11): groups=1 is the row RMS.
	optGroups = OptionInfo{"groups", "0", "GroupScaling pre-step with this many groups (0 = none; 1 = the authors' row-RMS layer-scale); d must be divisible by it"}
)

var registry = [numKinds]VariantInfo{
	None:            {"none", "identity (the paper's \"w/o Norm\")", nil},
	LayerNorm:       {"layernorm", "LayerNorm: per-row mean/variance, gain γ and bias β", []OptionInfo{optConv, optEps}},
	LayerNormSimple: {"layernorm-simple", "LayerNorm without γ and β (Xu et al.)", []OptionInfo{optConv, optEps}},
	DetachNorm:      {"detachnorm", "LayerNorm-simple with mean and divisor detached in the backward pass", []OptionInfo{optConv, optEps}},
	DetachMean:      {"detach-mean", "LayerNorm-simple with the mean detached in the numerator", []OptionInfo{optConv, optEps}},
	DetachVariance:  {"detach-variance", "LayerNorm-simple with the divisor detached", []OptionInfo{optConv, optEps}},
	AdaNorm: {"adanorm", "AdaNorm: z = φ⊙y, φ = C(1-k·y) detached, y = LayerNorm-simple(x)", []OptionInfo{
		{"c", "1", "scale C > 0 (paper: MT 1-2, LM 1, classification 0.3, MNIST 2)"},
		{"k", "0.1", "slope k > 0; φ ≤ 0 where |y| ≥ 1/k"},
		optConv, optEps}},
	RMSNorm: {"rmsnorm", "RMSNorm: x / √(mean(x²)+ε), gain γ and bias β", []OptionInfo{optEps}},
	BatchNorm: {"batchnorm", "BatchNorm over the real rows, per feature, with running mean/variance", []OptionInfo{
		{"momentum", "0.05", "running-statistics momentum in (0,1)"},
		optGroups,
		optEps}},
	PNV: {"pn-v", "PN-V: divide by the batch quadratic mean ψ_B, no mean subtraction", []OptionInfo{
		{"alpha", "0.9", "running ψ² decay in (0,1)"},
		optGroups,
		optEps}},
	PowerNorm: {"powernorm", "PowerNorm: GroupScaling, running ψ² forward, ν-corrected backward (Shen et al.)", []OptionInfo{
		{"alpha_fwd", "0.9", "running ψ² decay in (0,1)"},
		{"alpha_bwd", "0.9", "backward EMA ν decay in (0,1)"},
		{"alpha", "0.9", "sets alpha_fwd and alpha_bwd together"},
		{"warmup", "trainer's LR warmup", "steps that divide by the batch ψ_B (t ≤ warmup) and average ψ² cumulatively (t < warmup)"},
		{"groups", "attention heads (1 outside a Transformer)", "GroupScaling groups; d must be divisible by it"},
		{"bwd", "code", "backward divisor: code (ψ_B) or paper (ψ_{t-1})"},
		optEps}},
	GroupNorm: {"groupnorm", "GroupNorm: per sample and group of d/G features (over H·W on images, per row on tokens), γ and β", []OptionInfo{
		{"groups", "32", "groups G, clamped to the channels d, which G must divide; on token rows groups=1 is layernorm"},
		optEps}},
	InstanceNorm: {"instancenorm", "InstanceNorm: per sample and feature over its positions (H·W, or a sequence's real tokens), γ and β", []OptionInfo{
		{"running", "0", "1: keep running mean/variance of the instances and use them in inference (PyTorch's track_running_stats)"},
		{"momentum", "0.1", "running-statistics momentum in (0,1), with running=1"},
		optEps}},
}

// Variants lists every variant with its options, in registry order.
func Variants() []VariantInfo {
	out := make([]VariantInfo, len(registry))
	for i, v := range registry {
		v.Options = append([]OptionInfo(nil), v.Options...)
		out[i] = v
	}
	return out
}

func kindOptions(k Kind) []string {
	if k < 0 || k >= numKinds {
		return nil
	}
	var names []string
	for _, o := range registry[k].Options {
		names = append(names, o.Name)
	}
	return names
}
