package probes

import (
	"math"
	"time"
)

// Probe identifies one per-layer statistic. The names are those of
// docs/math.md §5 and are used verbatim by the TUI, the headless log, the run
// file and the exports. The numeric values are part of the run-file format:
// append new probes at the end, never reorder.
type Probe uint8

const (
	DistMu     Probe = iota // ‖μ_B − μ‖₂/d (own running stats, or shadow EMA)
	DistVar                 // ‖σ²_B − σ²‖₂/d
	DistPsi2                // ‖ψ²_B − ψ²‖₂/d
	GMu                     // ‖g_μ‖₂ (BN) or the per-row LayerNorm analogue
	GVar                    // (1/n)Σ‖g_σ²,i‖₂
	GPsi2                   // (1/n)Σ‖g_ψ²,i‖₂ (PN-V, PN)
	DxMean                  // Theorem 1: per-row mean of ∂ℓ/∂x, averaged over rows
	DxVar                   // Theorem 1: per-row variance of ∂ℓ/∂x, averaged over rows
	DyMean                  // Theorem 1: per-row mean of ∂ℓ/∂y (= g), averaged over rows
	DyVar                   // Theorem 1: per-row variance of g, averaged over rows
	InMean                  // mean of the layer input over real entries
	InStd                   // standard deviation of the layer input
	InMaxAbs                // max |x| of the layer input
	AdaFrac                 // AdaNorm: fraction of entries with |y| ≥ 1/k (φ ≤ 0)
	PNGamma                 // PowerNorm: Γ = mean x̂² over real rows
	PNNu                    // PowerNorm: ‖ν‖₂
	GammaDrift              // ‖γ − 1‖₂
	BetaNorm                // ‖β‖₂
	RdistMu                 // ‖μ_B − μ‖₂ / ‖σ‖₂ (σ = √σ² per feature), against the statistic before this batch's update
	RdistVar                // ‖σ²_B − σ²‖₂ / ‖σ²‖₂
	RdistPsi2               // ‖ψ²_B − ψ²‖₂ / ‖ψ²‖₂
	GWNorm                  // ‖∂L/∂W‖_F of the weight matrices the layer's output feeds (Xiong et al.)
	HNorm                   // LSTM (on its lstm<i>.h site): mean over real (sample, t) of ‖h_t‖₂/√H
	HNormCV                 // LSTM: coefficient of variation of ‖h_t‖₂/√H over t, averaged over samples
	NumProbes               // number of probes; not a probe
)

var probeNames = [NumProbes]string{
	"dist_mu", "dist_var", "dist_psi2", "g_mu", "g_var", "g_psi2",
	"dx_mean", "dx_var", "dy_mean", "dy_var",
	"in_mean", "in_std", "in_maxabs", "ada_frac", "pn_gamma", "pn_nu",
	"gamma_drift", "beta_norm", "rdist_mu", "rdist_var", "rdist_psi2", "gw_norm", "h_norm", "h_norm_cv",
}

// String returns the probe's canonical name, e.g. "dist_mu".
func (p Probe) String() string {
	if p < NumProbes {
		return probeNames[p]
	}
	return "probe?"
}

// ProbeByName maps a canonical name back to its Probe.
func ProbeByName(name string) (Probe, bool) {
	for i, n := range probeNames {
		if n == name {
			return Probe(i), true
		}
	}
	return 0, false
}

// LayerValues holds one layer's probe values for one step. NaN means "not
// measured at this step" (interval not due, or the probe does not apply to the
// variant); use Has to test.
type LayerValues [NumProbes]float64

// Has reports whether probe p was measured.
func (v *LayerValues) Has(p Probe) bool { return !math.IsNaN(v[p]) }

// EmptyLayerValues returns a LayerValues with every probe unmeasured.
func EmptyLayerValues() LayerValues {
	var v LayerValues
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// Status is a variant's run state as carried by its Frames.
type Status uint8

const (
	Running  Status = iota
	Diverged        // stopped by the divergence guard; Frame.Step is the step it diverged at
	Done            // finished all its steps
	Stopped         // interrupted by the user (SIGINT/SIGTERM) before the end
)

func (s Status) String() string {
	switch s {
	case Running:
		return "running"
	case Diverged:
		return "diverged"
	case Done:
		return "done"
	case Stopped:
		return "stopped"
	}
	return "status?"
}

// Eval carries an evaluation result. Split is "val" or "test".
type Eval struct {
	Split  string
	Loss   float64
	Metric float64 // accuracy in [0,1] or bits per character, see RunMeta.Metric
	// TrainLoss is the smoothed train loss the evaluation is compared with:
	// the mean of the finite per-step train losses since the previous "val"
	// evaluation (filled by Collector.AddEval; NaN when unknown).
	TrainLoss float64
}

// Gap is the generalization gap: evaluation loss minus the smoothed train
// loss. NaN when either is unknown.
func (e Eval) Gap() float64 { return e.Loss - e.TrainLoss }

// Spectrum is the embedding matrix's normalised singular values at Step,
// computed off the training goroutine; it rides on a later Frame.
type Spectrum struct {
	Step    int
	Sigma   []float64 // σ_i/σ_1, descending, Sigma[0] == 1
	EffRank float64   // exp(H(p)), p_i = σ_i/Σσ
}

// AlertKind classifies an Alert.
type AlertKind uint8

const (
	AlertDivergence AlertKind = iota // NaN/Inf in loss, gradients or taps
	AlertOutlier                     // probe value over 10× its running median
	AlertNuGrowth                    // PN: Γ > 2/(1-α_b)
	AlertAdaNegPhi                   // AdaNorm: φ ≤ 0 on more than 1% of entries
	AlertOverfit                     // val loss rising while train loss falls
	NumAlertKinds
)

var alertNames = [NumAlertKinds]string{"divergence", "outlier", "nu_growth", "adanorm_phi", "overfit"}

func (k AlertKind) String() string {
	if k < NumAlertKinds {
		return alertNames[k]
	}
	return "alert?"
}

// Alert is a first-class event in the Frame stream.
type Alert struct {
	Kind      AlertKind
	Step      int
	Layer     int   // index into RunMeta.Layers, -1 when not layer-specific
	Probe     Probe // meaningful for AlertOutlier (and NumProbes otherwise)
	Value     float64
	Threshold float64
	Msg       string // one human line, e.g. "diverged at step 812 (last good 811)"
}

// Frame is one training step of one variant: what every consumer (TUI,
// headless log, run file, export) reads. Frames of one variant arrive in step
// order; frames of different variants interleave.
type Frame struct {
	Variant   int // index into RunMeta.Variants
	Step      int // 1-based training step
	Epoch     float64
	TrainLoss float64
	Layers    []LayerValues // one per RunMeta.Layers entry; nil when no probe was due
	Eval      []Eval        // evaluations finished at this step (val, and test at the end)
	Spectrum  *Spectrum     // a spectrum finished since the previous Frame, or nil
	Alerts    []Alert
	Status    Status
	// Batch is the shape of the step's training batch (zero: not
	// recorded).
	Batch BatchShape
	// Hists are the layers' input histograms taken at this step, in
	// RunMeta.Histogram's bins, ascending by layer; nil when none was.
	Hists []Histogram
	// Timing: wall-clock facts. They are recorded and replayed but are not part
	// of the run's determinism (tests compare Frames with these zeroed).
	Elapsed     time.Duration // since the run started
	StepsPerSec float64
	// System is the writing process's resources at this step, when a
	// stream's writer records them (python/normtop's system=True); nil else.
	System *System
}

// System is what a stream's writer says of its process at a step
// (docs/formats.md "system"): NaN where it says nothing.
type System struct {
	WallS        float64 // wall seconds per step since the previous logged step
	RSSBytes     float64 // resident memory
	CUDAMaxBytes float64 // peak CUDA memory allocated (torch.cuda.max_memory_allocated)
}

// VariantMeta names one variant of a run.
type VariantMeta struct {
	Name string // registry name, e.g. "powernorm"
	Spec string // full spec with options, e.g. "powernorm:alpha_fwd=0.95,warmup=4000"
	Seed int64  // the variant's seed when the run trains several (--seeds); 0 in older files
}

// RunMeta describes a run: everything a replay needs to draw the same screens.
type RunMeta struct {
	RunID    string
	Model    string // mlp | cnn | transformer
	Data     string // dataset description, e.g. "mnist (GoMNIST)" or a path
	Metric   string // "accuracy" or "bpc"
	Variants []VariantMeta
	Layers   []string // norm-site names, identical for every variant
	Start    time.Time
	// Config is the full run configuration as key/value pairs (steps, batch,
	// lr, seeds, probe intervals, loss convention, model sizes, ...), kept
	// flat so that the run file and the header line stay readable.
	Config map[string]string
	// Histogram is the bins of the run's input histograms (Frame.Hists);
	// nil when the run takes none.
	Histogram *HistLayout `json:",omitempty"`
}
