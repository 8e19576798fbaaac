package train

import (
	"fmt"
	"math"
	"testing"

	"github.com/normtop/normtop/probes"
)

// TestLossSumScalesOnlyTheGraph: with --loss sum the loss is summed over
// the batch's real tokens and the parameter gradients are divided by their
// count after the backward (fairseq), so training takes the same steps as
// with the mean loss while every gradient inside the graph, and so every
// g_* probe, is the mean's times that count; gw_norm, taken after the
// division, is the same. Checked over three steps (the second and third
// start from the weights the first updates made), on fixed sentence
// batches, token budgets and the classifier's documents, with label
// smoothing on.
func TestLossSumScalesOnlyTheGraph(t *testing.T) {
	for _, mk := range []struct {
		name string
		cfg  func(*testing.T) Config
	}{{"words", tinyWords}, {"token budgets", tinyBudget(tinyWords)}, {"classifier", tinyClassifier}} {
		t.Run(mk.name, func(t *testing.T) {
			base := mk.cfg(t)
			base.Dtype, base.Dropout, base.LabelSmoothing, base.WeightDecay = "float64", 0, 0.1, 1e-4
			base.Variants = []string{"batchnorm", "layernorm"}
			base.Probes = probes.Intervals{Stats: 1, Grad: 1, Params: 1}
			mean, sum := base, base
			mean.Loss, sum.Loss = LossMean, LossSum
			rm, err := NewRunner(mean)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := NewRunner(sum)
			if err != nil {
				t.Fatal(err)
			}
			for step := 1; step <= 3; step++ {
				for vi := range rm.variants {
					fm, fs, n := lossStep(t, rm, vi, step), lossStep(t, rs, vi, step), realTargets(rs.variants[vi].train.b.targets)
					if math.Abs(fm.TrainLoss-fs.TrainLoss) > 1e-12 {
						t.Errorf("step %d variant %d: train loss %v (mean) and %v (sum): both should be the NLL mean", step, vi, fm.TrainLoss, fs.TrainLoss)
					}
					checked := 0
					for li := range fm.Layers {
						for _, p := range []probes.Probe{probes.GMu, probes.GVar, probes.DyMean, probes.DxVar, probes.GWNorm} {
							a, b := fm.Layers[li][p], fs.Layers[li][p]
							if math.IsNaN(a) && math.IsNaN(b) {
								continue
							}
							want := a * float64(n) // norms and first moments of a gradient
							switch p {
							case probes.GWNorm:
								want = a // taken after the division
							case probes.DxVar:
								want = a * float64(n) * float64(n) // a second moment
							}
							if d := math.Abs(b - want); d > 1e-9*math.Max(math.Abs(want), 1e-12) && d > 1e-15 {
								t.Errorf("step %d variant %d layer %d %s: sum %v, want %v (mean %v, n %d)", step, vi, li, p, b, want, a, n)
							}
							checked++
						}
					}
					if checked == 0 {
						t.Fatalf("step %d: no probe compared", step)
					}
				}
			}
		})
	}
}

// lossStep runs one training step of variant vi and seals its Frame.
func lossStep(t *testing.T, r *Runner, vi, step int) probes.Frame {
	t.Helper()
	v := r.variants[vi]
	d, err := r.step(v, step)
	if err != nil {
		t.Fatal(fmt.Errorf("variant %d: %w", vi, err))
	}
	if d.Diverged() {
		t.Fatalf("variant %d diverged at step %d", vi, step)
	}
	return v.coll.Seal(&d, probes.Running, 0)
}

func realTargets(t []int32) int {
	n := 0
	for _, c := range t {
		if c >= 0 {
			n++
		}
	}
	return n
}

// TestLossSumGradCheck: the word preset's training loss (summed over real
// tokens, label-smoothed) differentiated by the graph agrees with central
// finite differences of that loss, for every parameter of a tiny word
// model on a token-budget batch, with a per-row and a per-feature norm.
func TestLossSumGradCheck(t *testing.T) {
	for _, variant := range []string{"layernorm", "batchnorm:groups=1"} {
		t.Run(variant, func(t *testing.T) {
			c := tinyBudget(tinyWords)(t)
			c.Dtype, c.Variants, c.Loss, c.LabelSmoothing = "float64", []string{variant}, LossSum, 0.1
			c.DModel, c.Vocab = 8, 8 // every weight is checked: keep them few
			r, err := NewRunner(c)
			if err != nil {
				t.Fatal(err)
			}
			v := r.variants[0]
			mask := v.batches.next(v.train)
			for _, l := range v.layers {
				l.SetMask(mask)
			}
			for i, g := range netGradCheck(t, v.train) {
				if rel := g.diff / math.Max(g.scale, 1e-9); rel > 1e-6 || math.IsNaN(rel) {
					t.Errorf("param %d (%s): relative error %.3g", i, g.name, rel)
				}
			}
		})
	}
}
