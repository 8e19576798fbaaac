package probes

import (
	"fmt"
	"math"
)

// evalTracker smooths the train loss between evaluations and watches for
// over-fitting: the validation loss rising while the smoothed train loss
// falls, on OverfitEvals consecutive "val" evaluations.
type evalTracker struct {
	sum float64 // finite train losses since the previous val evaluation
	n   int

	lastTrain float64 // smoothed train loss of the previous val evaluation
	prevVal   float64 // NaN before the first val evaluation
	prevTrain float64
	streak    int // consecutive val evals with val up and train down
	startVal  float64
	startTr   float64
	ep        episode
}

func (e *evalTracker) reset() {
	e.lastTrain, e.prevVal, e.prevTrain = math.NaN(), math.NaN(), math.NaN()
}

func (e *evalTracker) addTrain(loss float64) {
	if finite(loss) {
		e.sum += loss
		e.n++
	}
}

// smoothed returns the mean train loss since the previous val evaluation, or
// that evaluation's value when no step has run since.
func (e *evalTracker) smoothed() float64 {
	if e.n == 0 {
		return e.lastTrain
	}
	return e.sum / float64(e.n)
}

// addEval appends e to f.Eval, filling e.TrainLoss with the smoothed train
// loss (so e.Gap() is the generalization gap), and adds an over-fitting alert
// when, for OverfitEvals consecutive "val" evaluations, the validation loss
// rose while the smoothed train loss fell. The alert fires once per episode;
// the episode ends when the streak breaks.
func (c *Collector) addEval(f *Frame, e Eval) {
	t := &c.eval
	e.TrainLoss = t.smoothed()
	f.Eval = append(f.Eval, e)
	if Split(e.Split) != SplitVal {
		return
	}
	t.lastTrain, t.sum, t.n = e.TrainLoss, 0, 0
	if !finite(e.Loss) || !finite(e.TrainLoss) {
		return
	}
	if finite(t.prevVal) && e.Loss > t.prevVal && e.TrainLoss < t.prevTrain {
		if t.streak == 0 {
			t.startVal, t.startTr = t.prevVal, t.prevTrain
		}
		t.streak++
	} else {
		t.streak = 0
	}
	t.prevVal, t.prevTrain = e.Loss, e.TrainLoss
	if t.ep.fire(t.streak >= OverfitEvals, 1) {
		f.Alerts = append(f.Alerts, Alert{Kind: AlertOverfit, Step: f.Step, Layer: -1, Probe: NumProbes,
			Value: e.Loss, Threshold: t.startVal,
			Msg: fmt.Sprintf("over-fitting: val loss rose %d evaluations in a row (%.4g → %.4g) while train loss fell (%.4g → %.4g)",
				t.streak, t.startVal, e.Loss, t.startTr, e.TrainLoss)})
	}
}
