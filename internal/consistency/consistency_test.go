package consistency

import (
	"math"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
)

// run builds a run of the given seeds (nil: one seed, unnamed) of three
// specs on one layer, 60 steps, evaluated every 20: layernorm and powernorm
// reach accuracies whose percentages need their second decimal, adanorm
// diverges at step 30 before its first evaluation (its values do not exist).
func run(seeds []int64) (probes.RunMeta, []probes.Frame) {
	if seeds == nil {
		seeds = []int64{0}
	}
	specs := []string{"layernorm", "powernorm:alpha_fwd=0.9", "adanorm"}
	m := probes.RunMeta{RunID: "consistency", Model: "mlp", Data: "synthetic", Metric: string(probes.MetricAccuracy),
		Layers: []string{"block0.ln1"}, Config: map[string]string{"steps": "60"}}
	for _, sp := range specs {
		for _, s := range seeds {
			name, _, _ := strings.Cut(sp, ":")
			m.Variants = append(m.Variants, probes.VariantMeta{Name: name, Spec: sp, Seed: s})
		}
	}
	var frames []probes.Frame
	for step := 1; step <= 60; step++ {
		for v, vm := range m.Variants {
			f := probes.Frame{Variant: v, Step: step, Epoch: float64(step) / 60, TrainLoss: 1 / float64(step),
				StepsPerSec: 10, Layers: []probes.LayerValues{probes.EmptyLayerValues()}}
			f.Layers[0][probes.InStd] = 1
			switch {
			case vm.Name == "adanorm" && step > 30:
				continue
			case vm.Name == "adanorm" && step == 30:
				f.Status, f.TrainLoss = probes.Diverged, math.Inf(1)
			case step == 60:
				f.Status = probes.Done
			}
			if step%20 == 0 && vm.Name != "adanorm" {
				acc := 0.81254 + 0.01*float64(vm.Seed) + 0.0333*float64(v/len(seeds)) + 0.001*float64(step)
				f.Eval = []probes.Eval{{Split: "val", Loss: 1.5 - acc/10, Metric: acc, TrainLoss: 0.4}}
				if step == 60 {
					f.Eval = append(f.Eval, probes.Eval{Split: "test", Loss: 0.5, Metric: acc - 0.00503, TrainLoss: 0.4})
				}
			}
			frames = append(frames, f)
		}
	}
	return m, frames
}

// finalVal is each variant's last val metric in frames (NaN when none).
func finalVal(m probes.RunMeta, frames []probes.Frame) []float64 {
	return lastMetric(m, frames, probes.SplitVal)
}

// lastMetric is each variant's last metric of split in frames (NaN when none).
func lastMetric(m probes.RunMeta, frames []probes.Frame, split probes.Split) []float64 {
	return lastEval(m, frames, split, func(e probes.Eval) float64 { return e.Metric })
}

// lastLoss is each variant's last loss of split in frames (NaN when none).
func lastLoss(m probes.RunMeta, frames []probes.Frame, split probes.Split) []float64 {
	return lastEval(m, frames, split, func(e probes.Eval) float64 { return e.Loss })
}

// lastEval is each variant's last value of split's evaluations in frames,
// as of picks it (NaN when none).
func lastEval(m probes.RunMeta, frames []probes.Frame, split probes.Split, of func(probes.Eval) float64) []float64 {
	out := make([]float64, len(m.Variants))
	for i := range out {
		out[i] = math.NaN()
	}
	for _, f := range frames {
		for _, e := range f.Eval {
			if e.Split == string(split) {
				out[f.Variant] = of(e)
			}
		}
	}
	return out
}

// row checks that output holds a line with every one of key and that the
// line holds each of want; it reports the line otherwise.
func row(t *testing.T, consumer, output string, key []string, want ...string) {
	t.Helper()
	l := line(output, key...)
	if l == "" {
		t.Errorf("%s: no line with %q in\n%s", consumer, key, output)
		return
	}
	for _, w := range want {
		if !strings.Contains(l, w) {
			t.Errorf("%s: the line of %q lacks %q:\n%s", consumer, key, w, l)
		}
	}
	for _, other := range []string{"—", " - ", "NaN"} { // the glyphs missing values printed before
		if strings.Contains(l, other) {
			t.Errorf("%s: the line of %q prints a missing value as %q:\n%s", consumer, key, other, l)
		}
	}
}

// TestOneSeedSameStrings: in a single-seed run the dashboard's Summary, the
// headless log's end lines, the Markdown export and the report print each
// variant's label, its final val and test metrics and its missing values as
// the same strings (a percentage with two decimals; the one missing-value
// glyph), and the dashboard, the headless log and the report its final val
// loss as the same string (probes.FormatLoss). The report shows no test
// split; the Markdown export, in the papers' style, no losses.
func TestOneSeedSameStrings(t *testing.T) {
	m, frames := run(nil)
	o := consume(t, m, frames)
	kind := m.MetricKind()
	final, tests := finalVal(m, frames), lastMetric(m, frames, probes.SplitTest)
	losses := lastLoss(m, frames, probes.SplitVal)
	if !strings.Contains(o.markdown, "accuracy in %") {
		t.Fatalf("the Markdown export no longer states the percent once:\n%s", o.markdown)
	}
	for v, vm := range m.Variants {
		label := vm.Label()
		if vm.Name == "adanorm" { // diverged at step 30 before any evaluation
			row(t, "headless", o.headless, []string{"# end " + label + ":"}, "diverged at step 30", "val loss "+probes.Missing)
			row(t, "markdown", o.markdown, []string{"| " + label + " |"}, "| 30 |", "Diverge")
			row(t, "dashboard", o.summary, []string{"  " + label + " "}, "diverged at 30", " "+probes.Missing+" ")
			row(t, "report", o.report, []string{"  " + label + " "}, " "+probes.Missing+" ")
			continue
		}
		metric, test, loss := kind.Format(final[v]), kind.Format(tests[v]), probes.FormatLoss(losses[v])
		// The one train loss (the mean the last evaluation's gap used,
		// 0.4 in the frames) and the gap, val loss − train.
		train, gap := probes.FormatLoss(0.4), probes.FormatLoss(losses[v]-0.4)
		row(t, "headless", o.headless, []string{"# end " + label + ":"}, kind.Short()+" "+metric, "test loss 0.5000 "+kind.Short()+" "+test,
			"val loss "+loss+" ", "train loss "+train+" ", "gap "+gap)
		row(t, "dashboard", o.summary, []string{" " + label + " "}, " "+train+" ", " "+gap+" ")
		row(t, "report", o.report, []string{"  " + label + " "}, " "+train+" ", " "+gap+" ")
		row(t, "markdown", o.markdown, []string{"| " + label + " |"}, "| "+strings.TrimSuffix(metric, "%")+" |", "| "+strings.TrimSuffix(test, "%")+" |")
		row(t, "dashboard", o.summary, []string{" " + label + " "}, " "+metric+" ", " "+test+" ", " "+loss+" ")
		row(t, "report", o.report, []string{"  " + label + " "}, " "+metric+" ", " "+loss+" ")
	}
}

// TestSeedsSameStrings: over three seeds the dashboard's Summary and the
// report print each spec's final val metric as the same mean ± sd string,
// and the headless log and the Markdown export each seed's label and value
// as the same strings.
func TestSeedsSameStrings(t *testing.T) {
	seeds := []int64{1, 2, 3}
	m, frames := run(seeds)
	o := consume(t, m, frames)
	kind := m.MetricKind()
	final := finalVal(m, frames)
	for g := 0; g < 2; g++ {
		vs := m.Variants[g*len(seeds) : (g+1)*len(seeds)]
		var xs []float64
		for k, vm := range vs {
			v := g*len(seeds) + k
			xs = append(xs, final[v])
			label, metric := vm.Label(), kind.Format(final[v])
			row(t, "headless", o.headless, []string{"# end " + label + ":"}, kind.Short()+" "+metric)
			row(t, "markdown", o.markdown, []string{"| " + label + " |"}, "| "+strings.TrimSuffix(metric, "%")+" |")
		}
		group, ms := vs[0].Group(), kind.FormatMeanSD(probes.NewMeanSD(xs))
		row(t, "dashboard", o.summary, []string{" " + group + " ×3"}, " "+ms+" ")
		row(t, "report", o.report, []string{"  " + group + " "}, " "+ms+" ")
	}
}
