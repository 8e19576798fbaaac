package probes

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/normtop/normtop/normspec"
)

// TrainStep is what the trainer hands its Collector after the forward and
// backward pass of one training step, before it applies the update.
type TrainStep struct {
	Step        int
	Epoch       float64
	Loss        float64          // the train loss of the step's batch
	Taps        []*normspec.Taps // one per layer, nil for a layer without taps
	GradsFinite bool             // every gradient entry is finite
	// WeightGrads is the gw_norm probe, one per layer: ‖∂L/∂W‖_F of the
	// weight matrices the layer's output feeds (NaN for a layer that feeds
	// none); the trainer fills it when the Grad group is due, else nil.
	WeightGrads []float64
	// Batch is the shape of the step's batch, as the trainer took it.
	Batch BatchShape
}

// Draft is the Frame of one step while its Collector builds it: Step starts
// it, AddEval adds the step's evaluations, Seal hands out the finished Frame.
// Only the Collector changes it, so each Frame field has one owner.
type Draft struct {
	f        Frame
	diverged bool
}

// Diverged reports whether the divergence guard stopped the variant at this
// step. The trainer must then not apply the step's update and sends the
// sealed Frame as the variant's last.
func (d *Draft) Diverged() bool { return d.diverged }

// Step starts the Frame of a training step from what the trainer measured,
// and is the divergence guard: a non-finite loss, gradient or tap ends the
// variant here (Status Diverged, with an alert naming why and the last good
// step), before the bad update reaches the weights.
func (c *Collector) Step(ts TrainStep) Draft {
	d := Draft{f: c.measure(ts.Step, ts.Epoch, ts.Loss, ts.Taps)}
	d.f.Batch = ts.Batch
	c.addWeightGrads(&d.f, ts.WeightGrads)
	if why := c.nonFinite(ts); why != "" {
		c.diverge(&d.f, why)
		d.diverged = true
	}
	return d
}

// addWeightGrads records gw_norm on a Frame whose Grad group is due. The
// values are the trainer's, computed from gradients whose finiteness
// GradsFinite already guards.
func (c *Collector) addWeightGrads(f *Frame, gw []float64) {
	if f.Layers == nil || gw == nil || !due(c.iv.Grad, f.Step) {
		return
	}
	for i := range f.Layers {
		if i < len(gw) {
			f.Layers[i][GWNorm] = gw[i]
		}
	}
}

// nonFinite names what stops the variant at this step, "" when nothing does.
func (c *Collector) nonFinite(ts TrainStep) string {
	switch {
	case math.IsNaN(ts.Loss) || math.IsInf(ts.Loss, 0):
		return fmt.Sprintf("train loss %v", ts.Loss)
	case !ts.GradsFinite:
		return "non-finite gradient"
	}
	for k, t := range ts.Taps {
		if t != nil && t.NonFinite {
			name := "layer" + strconv.Itoa(k)
			if k < len(c.layers) {
				name = c.layers[k]
			}
			return "non-finite values at norm site " + name
		}
	}
	return ""
}

// AddEval adds an evaluation run at the Draft's step, filling e.TrainLoss with
// the train loss averaged since the previous validation (so e.Gap() is the
// generalization gap) and watching for over-fitting.
func (c *Collector) AddEval(d *Draft, e Eval) { c.addEval(&d.f, e) }

// Seal finishes the Draft's Frame. end is Running while the variant goes on,
// Done after its last step, Stopped when the user stopped it; a Draft that
// diverged stays Diverged whatever end says. The variant's last Frame waits
// for a spectrum still being computed. elapsed is the run's time so far.
func (c *Collector) Seal(d *Draft, end Status, elapsed time.Duration) Frame {
	f := d.f
	if !d.diverged && end != Running {
		c.finish(&f, end)
	}
	c.stamp(&f, elapsed)
	c.lastEpoch, c.lastLoss = f.Epoch, f.TrainLoss
	return f
}

// Stopped is the Frame of a variant stopped after step without a Draft of
// its own (cancelled before the next step ran, or an evaluation failed): it
// repeats the epoch and train loss of the previous Frame and is the
// variant's last.
func (c *Collector) Stopped(step int, elapsed time.Duration) Frame {
	f := Frame{Variant: c.variant, Step: step, Epoch: c.lastEpoch, TrainLoss: c.lastLoss}
	c.finish(&f, Stopped)
	c.stamp(&f, elapsed)
	return f
}

// stamp sets the Frame's timing: the run's elapsed time and the steps per
// second it implies.
func (c *Collector) stamp(f *Frame, elapsed time.Duration) {
	f.Elapsed = elapsed
	if s := elapsed.Seconds(); s > 0 {
		f.StepsPerSec = float64(f.Step) / s
	}
}
