package findings

import (
	"fmt"
	"slices"
	"strings"
)

// Run is one training run of the plan: a name (its run file is named after
// it) and the exact `normtop train` arguments (the trainer adds --record and
// --headless).
type Run struct {
	Name string
	Args []string
	// CPUMin is the planned cost in CPU-minutes on the 2-core development
	// machine, for the plan's budget (all claims ≤ 60); an estimate from
	// the measured cost per variant-step of the models, not a measurement
	// of this run.
	CPUMin float64
}

// Claim is one claim of docs/findings.md: the runs it needs and the runs
// its report reads (a subset, by name; a run may serve several claims and
// is trained once).
type Claim struct {
	ID    string // "ii"
	Title string
	Runs  []Run
	Reads []string
}

// perSeed makes one run per seed, NAME-sSEED, each `args --seeds SEED`:
// trainings of one run go side by side (memory: one model per variant and
// seed), and a stopped run loses one seed's work, not three. The report
// groups a variant's seeds across files.
func perSeed(name string, cpuMin float64, args []string, seeds ...int) []Run {
	out := make([]Run, len(seeds))
	for i, s := range seeds {
		out[i] = Run{Name: fmt.Sprintf("%s-s%d", name, s), CPUMin: cpuMin / float64(len(seeds)),
			Args: append(append([]string(nil), args...), "--seeds", fmt.Sprint(s))}
	}
	return out
}

// names lists runs' names.
func names(runs []Run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.Name
	}
	return out
}

// The runs, shared by name between claims.
var (
	// The word LM in PowerNorm's setting (docs/findings.md ii): token-budget,
	// length-grouped batches of up to 1,024 tokens (fairseq's 4,096 scaled
	// to d 64 on 2 cores), BN and PN-V with the layer-scale step at one EMA
	// rate (1 − α = m = 0.05), LayerNorm and PowerNorm for the spectrum.
	// 2,000 steps, so that the spectrum settles (iv) and growth over
	// training can show (ii-d); spectrum every 100 steps: 5 in the last
	// quarter, enough to say "still moving". 12 CPU-minutes for the 3 seeds
	// (the measured 0.029 CPU-s per variant-step of the 32-sentence word
	// LM, × 4 variants × 2,000 steps × 3 seeds).
	runsWordLM = perSeed("wordlm", 12, []string{
		"--data", "sotu", "--max-tokens", "1024",
		"--variants", "batchnorm:groups=1,pn-v:groups=1,alpha=0.95,layernorm,powernorm",
		"--steps", "2000"}, 1, 2, 3)
	// The CNN side of (ii): a ResNet-style CNN whose first BN follows its
	// first convolution (0.048 CPU-s per variant-step measured on the
	// preset: 1 variant × 3 seeds × 1,000 steps ≈ 2.5 CPU-min).
	runResNet = Run{Name: "resnet", CPUMin: 2.5, Args: []string{
		"--model", "resnet", "--variants", "batchnorm", "--seeds", "1,2,3", "--steps", "1000"}}
	runDetach = Run{Name: "detach", CPUMin: 2, Args: []string{
		"--data", "sotu", "--variants", "layernorm-simple,detachnorm", "--seeds", "1,2,3", "--steps", "500"}}
	runClassifier = Run{Name: "classifier", CPUMin: 4, Args: []string{
		"--model", "classifier", "--seeds", "1,2,3", "--epochs", "6"}}
	// (vi): Pre-LN against Post-LN on the character preset with fairseq's
	// input (Xiong et al. train fairseq Transformers: embeddings scaled to
	// variance ≈ 1 over sinusoids), one file per placement × depth ×
	// warm-up; the 12-block runs are read at step 1 only (vi-a). 1.2
	// CPU-min per 600-step 6-block run (measured), seconds for the others.
	runsPlacement = placementRuns()
	// (vii): the LSTM preset on words, plain against LayerNorm (2.4 CPU-min
	// measured for the 3 seeds).
	runLSTM = Run{Name: "lstm", CPUMin: 2.5, Args: []string{"--model", "lstm", "--seeds", "1,2,3"}}
)

// placementRuns are the runs of claim (vi).
func placementRuns() []Run {
	var out []Run
	for _, p := range []string{"pre", "post"} {
		for _, w := range []string{"0", "100"} {
			out = append(out, Run{Name: "vi-" + p + "-6-w" + w, CPUMin: 1.2, Args: []string{
				"--data", "text", "--input", "fairseq", "--variants", "layernorm", "--placement", p,
				"--layers", "6", "--warmup", w, "--steps", "600", "--seeds", "1,2,3"}})
		}
		out = append(out, Run{Name: "vi-" + p + "-12", CPUMin: 0.1, Args: []string{
			"--data", "text", "--input", "fairseq", "--variants", "layernorm", "--placement", p,
			"--layers", "12", "--steps", "1", "--seeds", "1,2,3"}})
	}
	return out
}

// Plan is every claim `normtop findings` judges, in report order. A claim
// is added with one entry here.
var Plan = []Claim{
	{ID: "i", Title: "Xu et al. Table 2: DetachNorm trains worse than LayerNorm-simple",
		Runs: []Run{runDetach}, Reads: []string{"detach"}},
	{ID: "ii", Title: "PowerNorm Figs. 2-3: a Transformer's batch statistics are far less stable than a CNN's",
		Runs: append(slices.Clone(runsWordLM), runResNet), Reads: append(names(runsWordLM), "resnet")},
	{ID: "iii", Title: "PowerNorm Fig. 4: ψ² is steadier than σ²",
		Runs: runsWordLM, Reads: names(runsWordLM)},
	{ID: "iv", Title: "PowerNorm Fig. 6: PN's embedding spectrum decays more slowly than LN's",
		Runs: runsWordLM, Reads: names(runsWordLM)},
	{ID: "v", Title: "Xu et al. Figs. 1, 3: LayerNorm's gain and bias over-fit",
		Runs: []Run{runClassifier}, Reads: []string{"classifier"}},
	{ID: "vi", Title: "The tutorial, ch. 6 (Xiong et al.): Post-LN's gradients at initialization and its need for warm-up",
		Runs: runsPlacement, Reads: names(runsPlacement)},
	{ID: "vii", Title: "The tutorial, ch. 5 (Ba et al.): LayerNorm keeps an LSTM's hidden state stable and converges faster",
		Runs: []Run{runLSTM}, Reads: []string{"lstm"}},
}

// IDs lists the claims of plan.
func IDs(plan []Claim) []string {
	out := make([]string, len(plan))
	for i, c := range plan {
		out[i] = c.ID
	}
	return out
}

// Select returns the claims of plan named in only ("ii,iii"; "" for all),
// in plan order. An unknown name is an error that lists the valid ones.
func Select(plan []Claim, only string) ([]Claim, error) {
	if strings.TrimSpace(only) == "" {
		return plan, nil
	}
	want := map[string]bool{}
	for _, id := range strings.Split(only, ",") {
		id = strings.TrimSpace(id)
		if !slices.Contains(IDs(plan), id) {
			return nil, fmt.Errorf("--only %q: unknown claim %q (claims: %s)", only, id, strings.Join(IDs(plan), ", "))
		}
		want[id] = true
	}
	var out []Claim
	for _, c := range plan {
		if want[c.ID] {
			out = append(out, c)
		}
	}
	return out, nil
}

// RunsOf lists the runs the claims need, each once, in first-use order. A
// name used with two argument lists is an error in the plan.
func RunsOf(claims []Claim) ([]Run, error) {
	var out []Run
	for _, c := range claims {
		for _, r := range c.Runs {
			if i := slices.IndexFunc(out, func(o Run) bool { return o.Name == r.Name }); i >= 0 {
				if !slices.Equal(out[i].Args, r.Args) {
					return nil, fmt.Errorf("plan: run %q has two argument lists", r.Name)
				}
				continue
			}
			out = append(out, r)
		}
		for _, name := range c.Reads {
			if !slices.ContainsFunc(c.Runs, func(r Run) bool { return r.Name == name }) {
				return nil, fmt.Errorf("plan: claim %s reads run %q, which it does not list", c.ID, name)
			}
		}
	}
	return out, nil
}

// Command is the `normtop train` command line of a run.
func (r Run) Command() string { return "normtop train " + strings.Join(r.Args, " ") }

// PaperWordLMVariants are the paper runs' variants: Plan's word LM's.
var PaperWordLMVariants = []string{"batchnorm:groups=1", "pn-v:groups=1,alpha=0.95", "layernorm", "powernorm"}

// PaperPlan is `normtop findings --scale paper`: claims (ii)-(iv) on the
// word LM at the PowerNorm authors' size (train.PaperConfig: d 512, 6
// blocks, FFN 1,024, 4,096-token batches, dropout 0.3, warm-up 8,000, no
// clipping, 20,000 steps), three seeds, with the CNN side of (ii) as in
// Plan. runCPUMin is one seed's cost, the trainer's cost model
// (train.EstimateRun of that configuration with PaperWordLMVariants),
// which the caller computes: findings links no trainer (the consumers link
// no gorgonia). Weeks of CPU time on 2 cores, for a machine that has them.
func PaperPlan(runCPUMin float64) []Claim {
	seeds := []int{1, 2, 3}
	cpuMin := runCPUMin * float64(len(seeds))
	runs := perSeed("paper-wordlm", cpuMin, []string{"--scale", "paper", "--data", "sotu",
		"--variants", strings.Join(PaperWordLMVariants, ",")}, seeds...)
	title := func(id string) string {
		i := slices.IndexFunc(Plan, func(c Claim) bool { return c.ID == id })
		return Plan[i].Title
	}
	return []Claim{
		{ID: "ii", Title: title("ii"), Runs: append(slices.Clone(runs), runResNet), Reads: append(names(runs), "resnet")},
		{ID: "iii", Title: title("iii"), Runs: runs, Reads: names(runs)},
		{ID: "iv", Title: title("iv"), Runs: runs, Reads: names(runs)},
	}
}
