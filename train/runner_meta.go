package train

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/normtop/normtop/nn"
	"github.com/normtop/normtop/probes"
)

// buildMeta is the run's header: the variants, the norm sites and the
// whole configuration as the run file and the report show it.
func (r *Runner) buildMeta() probes.RunMeta {
	c := r.cfg
	m := probes.RunMeta{
		RunID:  fmt.Sprintf("%s-%s-seed%d", time.Now().UTC().Format("20060102T150405Z"), c.Model, c.Seed),
		Model:  string(c.Model),
		Data:   r.src.desc,
		Metric: r.metric(),
		Start:  time.Now(),
	}
	for _, v := range r.variants {
		vm := probes.VariantMeta{Name: v.ncfg.Name(), Spec: v.ncfg.String()}
		if len(c.Seeds) > 1 {
			vm.Seed = v.seed
		}
		m.Variants = append(m.Variants, vm)
	}
	for _, s := range r.model.Sites() {
		m.Layers = append(m.Layers, s.Name)
	}
	params := 0
	for _, ws := range r.model.Weights() {
		n := 1
		for _, d := range ws.Shape {
			n *= d
		}
		params += n
	}
	kv := map[string]string{
		"model": string(c.Model), "data": c.Data, "data_path": c.DataPath, "data_desc": r.src.desc,
		"steps": strconv.Itoa(r.steps), "epochs": strconv.Itoa(c.Epochs), "steps_per_epoch": strconv.Itoa(r.src.perEpoch),
		"batch": strconv.Itoa(c.Batch), "lr": fmtF(c.LR), "warmup": strconv.Itoa(c.Warmup),
		"schedule":  "linear warmup, then lr*sqrt(warmup/step); constant when warmup=0",
		"optimizer": fmt.Sprintf("adam beta1=%g beta2=%g eps=%g", nn.AdamBeta1, nn.AdamBeta2, nn.AdamEps),
		"clip":      fmtF(c.Clip), "dropout": fmtF(c.Dropout),
		"seed": strconv.FormatInt(c.Seed, 10), "weight_seed": strconv.FormatInt(c.Seed, 10),
		"batch_seed": strconv.FormatInt(c.Seed, 10), "dropout_seed": strconv.FormatInt(c.Seed+1, 10),
		"eval_every": strconv.Itoa(c.EvalEvery), "eval_size": strconv.Itoa(c.EvalSize), "test_size": strconv.Itoa(c.TestSize),
		"log_every":   strconv.Itoa(c.LogEvery),
		"probe_stats": strconv.Itoa(c.Probes.Stats), "probe_grad": strconv.Itoa(c.Probes.Grad),
		"probe_params": strconv.Itoa(c.Probes.Params), "probe_spectrum": strconv.Itoa(c.Probes.Spectrum),
		"loss":       r.lossDesc(),
		"dtype":      c.Dtype,
		"classes":    strconv.Itoa(r.src.classes),
		"params":     strconv.Itoa(params),
		"norm_sites": strconv.Itoa(len(m.Layers)),
	}
	if c.Model.OnTokens() {
		kv["label_smoothing"] = fmtF(c.LabelSmoothing)
	}
	kv["weight_decay"] = fmtF(c.WeightDecay)
	if r.src.corpus != nil {
		kv["sentence_limit"] = strconv.Itoa(c.SeqLen - 1)
		kv["length_filter"] = "sentences longer than sentence_limit left out whole (fairseq's filter), never cut"
		if f := r.src.corpus.Filtered.Summary(); f != "" {
			kv["length_filter"] = f
		}
	}
	if r.src.corpus != nil || r.src.labelled != nil {
		kv["vocab"] = strconv.Itoa(r.src.vocab)
		kv["padding"] = "right-padded per row; masked out of attention keys, norm statistics, loss and pooling"
	}
	r.modelConfig(kv)
	if len(c.Seeds) > 1 {
		var ss []string
		for _, sd := range c.Seeds {
			ss = append(ss, strconv.FormatInt(sd, 10))
		}
		kv["seeds"] = strings.Join(ss, ",")
		kv["weight_seed"], kv["batch_seed"], kv["dropout_seed"] = "per variant (its seed)", "per variant (its seed)", "per variant (its seed + 1)"
	}
	for i, lr := range c.VariantLR {
		kv["lr_variant"+strconv.Itoa(i)] = fmtF(lr)
	}
	m.Config = kv
	return m
}

// modelConfig adds the model's own entries to the header's configuration:
// sizes, and for the token models the input, placement and batching.
func (r *Runner) modelConfig(kv map[string]string) {
	c := r.cfg
	if c.Model.Recurrent() {
		kv["layers"], kv["d_model"], kv["seq_len"] = strconv.Itoa(c.Layers), strconv.Itoa(c.DModel), strconv.Itoa(c.SeqLen)
		kv["sizes"] = "per layer: gates = N_x(x·W_x) + N_h(h·W_h) + b; c = f*c + i*g; h = o*tanh(N_c(c)); BPTT over seq_len"
	} else if c.Model.OnTokens() {
		kv["layers"], kv["d_model"], kv["heads"], kv["seq_len"] = strconv.Itoa(c.Layers), strconv.Itoa(c.DModel), strconv.Itoa(c.Heads), strconv.Itoa(c.SeqLen)
		kv["placement"] = string(c.Placement.Or())
		if c.FFN > 0 {
			kv["ffn"] = strconv.Itoa(c.FFN)
		}
		kv["input"], kv["tie_embeddings"] = c.Input, strconv.FormatBool(c.TieEmbeddings)
		if c.Input == "" {
			kv["input"] = InputLearned
		}
		kv["batching"] = fmt.Sprintf("%d sequences per batch", c.Batch)
		if c.MaxTokens > 0 {
			kv["max_tokens"] = strconv.Itoa(c.MaxTokens)
			ties := "a fixed permutation"
			if c.TiesBySeed {
				ties = "a permutation drawn from the seed"
			}
			rounding := ""
			if c.RowMultiple > 1 {
				rounding = fmt.Sprintf(", rows rounded down to a multiple of %d", c.RowMultiple)
			}
			kv["batching"] = fmt.Sprintf("token budget: grouped by length (ties in %s), at most %d positions (padding included) per batch%s, batch order shuffled per epoch; evaluation in the same budgets", ties, c.MaxTokens, rounding)
			kv["tie_break"], kv["row_multiple"] = TieBreakName(c.TiesBySeed), strconv.Itoa(c.RowMultiple)
		}
	} else if c.Model == ModelMLP {
		kv["sizes"] = fmt.Sprintf("%d-256-256-%d", r.src.pixels, r.src.classes)
	} else if rn, ok := r.model.(*resnet); ok {
		kv["sizes"] = rn.sizes()
	} else {
		kv["sizes"] = fmt.Sprintf("conv1 1->20 5x5, pool 2, conv2 20->50 5x5, pool 2, fc1 500, out %d", r.src.classes)
	}
}

// lossDesc says what the training loss is and at which scale the
// gradients inside the graph (the g_* probes) are taken.
func (r *Runner) lossDesc() string {
	c := r.cfg
	unit := "real tokens"
	if !c.Model.OnTokens() {
		unit = "examples"
	} else if c.Model == ModelClassifier {
		unit = "documents"
	}
	smooth := ""
	if c.LabelSmoothing > 0 {
		smooth = fmt.Sprintf(", label smoothing %g in training", c.LabelSmoothing)
	}
	if c.lossSum() {
		return fmt.Sprintf("cross-entropy summed over %s%s; parameter gradients divided by their count after the backward (fairseq); g_* probes at the sum's scale; reported losses are the plain NLL, mean over %s (nats)", unit, smooth, unit)
	}
	return fmt.Sprintf("cross-entropy, mean over %s%s; reported losses the plain NLL (nats)", unit, smooth)
}

// TieBreakName is how the run header and --tie-break name TiesBySeed.
func TieBreakName(bySeed bool) string {
	if bySeed {
		return "seed"
	}
	return "fixed"
}

// metric names the evaluation metric: accuracy for the classifiers, bits
// per character for character text, perplexity for word-level text.
func (r *Runner) metric() string {
	switch {
	case r.src.text != nil:
		return string(probes.MetricBPC)
	case r.src.corpus != nil:
		return string(probes.MetricPerplexity)
	}
	return string(probes.MetricAccuracy)
}

func fmtF(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// measureInput records the variance of the first norm's input at the
// first batch of the first seed (transformer.inputVariance) in the run's
// header as input_var: the number that tells whether the running
// statistics' init of 1 is near the batch statistics (fairseq's input) or
// far from them.
func (r *Runner) measureInput(init [][]float64) error {
	var t *transformer
	switch m := r.model.(type) {
	case *transformer:
		t = m
	case *classifier:
		t = m.transformer
	default:
		return nil
	}
	c := r.cfg
	c.Seed = c.RunSeeds()[0]
	bt, err := r.src.newBatcher(c) // a fresh stream: the variants' own are untouched
	if err != nil {
		return err
	}
	v := r.variants[0].train // its inputs are rewritten before every step
	bt.next(v)
	iv, err := t.inputVariance(init, v.b.tokens, v.b.pos, v.b.real)
	if err != nil {
		return err
	}
	r.meta.Config["input_var"] = strconv.FormatFloat(iv, 'g', 4, 64)
	return nil
}
