package probes_test

import (
	"fmt"
	"github.com/normtop/normtop/normspec"
	"time"

	"github.com/normtop/normtop/probes"
)

// The trainer's loop for one variant: set the tap mask, run the step, hand
// the collector what it measured (it decides divergence), apply the update,
// hand off spectra, add evaluations, seal the Frame.
func ExampleCollector() {
	layers := []string{"block0.ln1"}
	c := probes.NewCollector(0, layers, probes.Intervals{Stats: 1, Grad: 1, Params: 1, Spectrum: 2})
	taps := &normspec.Taps{} // a real run uses layer.Taps()
	for step := 1; step <= 4; step++ {
		mask := c.TapMask(step) // layer.SetTapMask(mask) on every layer
		// ... forward/backward; the layer fills its taps. Here, by hand:
		*taps = normspec.Taps{Step: step, N: 2, D: 2, Mask: mask,
			BatchMean: []float64{0.5 * float64(step), -0.5}, BatchVar: []float64{1, 1}, BatchPsi2: []float64{1.25, 1.25}}
		d := c.Step(probes.TrainStep{Step: step, Epoch: float64(step) / 4, Loss: 2 / float64(step),
			Taps: []*normspec.Taps{taps}, GradsFinite: true})
		if d.Diverged() {
			return // send c.Seal(&d, probes.Diverged, elapsed) without applying the update
		}
		// ... apply the update.
		if c.WantSpectrum(step) {
			c.SubmitSpectrum(step, []float64{2, 0, 0, 1}, 2, 2) // a copy of the embedding
		}
		end := probes.Running
		if step == 4 {
			c.AddEval(&d, probes.Eval{Split: "val", Loss: 1, Metric: 0.5})
			end = probes.Done
		}
		f := c.Seal(&d, end, time.Duration(step)*time.Second)
		if f.Status == probes.Done {
			fmt.Printf("step %d %s: dist_mu %.4f, gap %.4f, eff rank %.4f\n", f.Step, f.Status,
				f.Layers[0][probes.DistMu], f.Eval[0].Gap(), f.Spectrum.EffRank)
		}
	}
	// Output: step 4 done: dist_mu 0.7131, gap -0.0417, eff rank 1.8899
}
