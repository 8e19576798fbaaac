package probes

import (
	"fmt"
	"math"
)

// Run end statuses, as the run file's end record and every summary word them.
const (
	RunCompleted   = "completed"   // every variant finished or diverged
	RunInterrupted = "interrupted" // stopped by the user (SIGINT/SIGTERM) or cut short
	RunDiverged    = "diverged"    // every variant diverged
)

// VariantStanding is where one variant stands after the Frames folded so far.
type VariantStanding struct {
	Seen       bool    // at least one Frame arrived
	Step       int     // step of the newest Frame
	Status     Status  // status of the newest Frame
	DivergedAt int     // first step with Status Diverged; 0 when it has not diverged
	TrainLoss  float64 // train loss of the newest Frame (NaN before any)
	// LastTrainLoss is the newest train loss that is not NaN (a diverging
	// variant's last measured loss stays visible); NaN before any.
	LastTrainLoss float64
	// Train is "the train loss" every output prints (the dashboard's
	// ranking, legend and Summary, the headless log, the report): the mean
	// of the finite per-step train losses over TrainFrom..TrainTo. From the
	// first val evaluation on, those are the steps up to the newest val
	// evaluation since the one before, and Train is the mean that
	// evaluation's gap was taken against (Eval.TrainLoss): train, val loss
	// and gap of a row are of one step, and val loss − Train = gap. Before
	// the first val evaluation, the steps so far. NaN before any.
	Train              float64
	TrainFrom, TrainTo int
	// The open window: the steps since the newest val evaluation; the
	// newest closed one's sum and count, and how many were closed (Merge
	// joins a part's first window to the open window before it).
	openSum          float64
	openN            int
	openFrom, openTo int
	closedSum        float64
	closedN, closes  int
	trainFromEval    bool // Train is the closing evaluation's mean
	// Best is the best "val" metric so far, by the run's Metric (NaN
	// values never count); NaN before any.
	Best        float64
	Val, Test   *Eval  // newest evaluation of each split, nil before the first
	ValStep     int    // the step of Val (0 before the first)
	Evals       []Eval // newest evaluation of every split, in the order the splits first came
	StepsPerSec float64
	Alerts      [NumAlertKinds]int // alerts seen, by kind
	Outliers    []int              // outlier alerts per layer (index into RunMeta.Layers)
}

// Diverged reports whether the divergence guard stopped the variant.
func (v *VariantStanding) Diverged() bool { return v.DivergedAt > 0 }

// Standings folds Frames into each variant's standing: the one bookkeeping that
// the dashboard, the headless log, the exports, the end record and the
// report draw from, each Frame folded once on its path (Fold). The zero
// Standings is not usable; call NewStandings.
type Standings struct {
	Metric   Metric // decides Best; "" (no metric) counts lower as better
	Variants []VariantStanding
}

// NewStandings returns an empty Standings for the run's variants and layers.
func NewStandings(m RunMeta) *Standings {
	t := NewStandingsSize(len(m.Variants), len(m.Layers))
	t.Metric = m.MetricKind()
	return t
}

// NewStandingsSize is NewStandings for a caller that knows only the counts.
func NewStandingsSize(variants, layers int) *Standings {
	t := &Standings{Variants: make([]VariantStanding, variants)}
	for i := range t.Variants {
		v := &t.Variants[i]
		v.TrainLoss, v.LastTrainLoss, v.Best, v.Train = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		t.Variants[i].Outliers = make([]int, layers)
	}
	return t
}

// Fold folds one Frame. Frames of an unknown variant are ignored (a damaged
// or foreign stream must not panic a consumer).
func (t *Standings) Fold(f *Frame) {
	if f.Variant < 0 || f.Variant >= len(t.Variants) {
		return
	}
	v := &t.Variants[f.Variant]
	v.Seen, v.Step, v.Status = true, f.Step, f.Status
	v.TrainLoss, v.StepsPerSec = f.TrainLoss, f.StepsPerSec
	if !math.IsNaN(f.TrainLoss) {
		v.LastTrainLoss = f.TrainLoss
	}
	v.foldTrain(f.Step, f.TrainLoss)
	if f.Status == Diverged && v.DivergedAt == 0 {
		v.DivergedAt = f.Step
	}
	for i := range f.Eval {
		v.addEval(f.Eval[i])
		if Split(f.Eval[i].Split) == SplitVal {
			v.ValStep = f.Step
			v.Best = t.best(v.Best, f.Eval[i].Metric)
			v.closeTrainWindow(f.Eval[i].TrainLoss)
		}
	}
	for _, a := range f.Alerts {
		if a.Kind < NumAlertKinds {
			v.Alerts[a.Kind]++
		}
		if a.Kind == AlertOutlier && a.Layer >= 0 && a.Layer < len(v.Outliers) {
			v.Outliers[a.Layer]++
		}
	}
}

// foldTrain adds one step's train loss to the open window (a NaN or ±Inf
// loss is not averaged: a diverging variant's mean stays readable). Until
// the first val evaluation closes a window, Train follows the open one.
func (v *VariantStanding) foldTrain(step int, loss float64) {
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return
	}
	if v.openN == 0 {
		v.openFrom = step
	}
	v.openSum += loss
	v.openN++
	v.openTo = step
	if v.closes == 0 {
		v.Train, v.TrainFrom, v.TrainTo = v.openSum/float64(v.openN), v.openFrom, v.openTo
	}
}

// closeTrainWindow ends the open window at a val evaluation: Train becomes
// the mean the evaluation's gap used (the Collector's, over every step,
// when fewer Frames were folded here), and the next step opens a new one.
func (v *VariantStanding) closeTrainWindow(evalTrain float64) {
	v.trainFromEval = !math.IsNaN(evalTrain) && !math.IsInf(evalTrain, 0)
	switch {
	case v.trainFromEval:
		v.Train = evalTrain
	case v.openN > 0:
		v.Train = v.openSum / float64(v.openN)
	}
	if v.openN > 0 {
		v.TrainFrom, v.TrainTo = v.openFrom, v.openTo
	}
	v.closedSum, v.closedN, v.closes = v.openSum, v.openN, v.closes+1
	v.openSum, v.openN = 0, 0
}

// TrainWindow names the steps Train averages, as a legend or a footnote
// prints it: "mean of steps 4251–4500" (one step: "step 7"); "" before any.
func (v *VariantStanding) TrainWindow() string {
	switch {
	case math.IsNaN(v.Train):
		return ""
	case v.TrainFrom == v.TrainTo:
		return fmt.Sprintf("step %d", v.TrainTo)
	}
	return fmt.Sprintf("mean of steps %d–%d", v.TrainFrom, v.TrainTo)
}

// best is the better of two metric values; NaN never wins.
func (t *Standings) best(cur, x float64) float64 {
	if t.Metric.Better(x, cur) {
		return x
	}
	return cur
}

// addEval makes e the newest evaluation of its split.
func (v *VariantStanding) addEval(e Eval) {
	switch Split(e.Split) {
	case SplitVal:
		v.Val = &e
	case SplitTest:
		v.Test = &e
	}
	for i := range v.Evals {
		if v.Evals[i].Split == e.Split {
			v.Evals[i] = e
			return
		}
	}
	v.Evals = append(v.Evals, e)
}

// MarkDiverged records that variant v diverged at step, e.g. from a run
// file's end record when the diverging Frame itself was lost.
func (t *Standings) MarkDiverged(v, step int) {
	if v >= 0 && v < len(t.Variants) && t.Variants[v].DivergedAt == 0 {
		t.Variants[v].DivergedAt = step
	}
}

// FoldEnd folds a run file's end record: the steps its variants diverged
// at (End.Diverged), which stand even when the diverging Frames were lost.
func (t *Standings) FoldEnd(diverged map[int]int) {
	for v, step := range diverged {
		t.MarkDiverged(v, step)
	}
}

// AllDiverged reports whether every variant diverged.
func (t *Standings) AllDiverged() bool {
	for i := range t.Variants {
		if !t.Variants[i].Diverged() {
			return false
		}
	}
	return len(t.Variants) > 0
}

// EndStatus is how the run ended, in the end record's words: RunCompleted
// when every variant finished (done or diverged), RunDiverged when all of
// them diverged, RunInterrupted otherwise (a variant never reported, is
// still running, or was stopped by the user).
func (t *Standings) EndStatus() string {
	for i := range t.Variants {
		v := &t.Variants[i]
		if !v.Seen || v.Status == Running || v.Status == Stopped {
			return RunInterrupted
		}
	}
	if t.AllDiverged() {
		return RunDiverged
	}
	return RunCompleted
}

// DivergedSteps maps each diverged variant to the step it diverged at, as
// the end record stores it.
func (t *Standings) DivergedSteps() map[int]int {
	m := map[int]int{}
	for i := range t.Variants {
		if t.Variants[i].Diverged() {
			m[i] = t.Variants[i].DivergedAt
		}
	}
	return m
}

// FinalEvals maps each variant that was evaluated to its newest evaluation of
// every split, as the end record stores them. The slices are copies.
func (t *Standings) FinalEvals() map[int][]Eval {
	m := map[int][]Eval{}
	for i := range t.Variants {
		if evs := t.Variants[i].Evals; len(evs) > 0 {
			m[i] = append([]Eval(nil), evs...)
		}
	}
	return m
}

// Merge folds in a Standings of the Frames that follow t's in the stream (the
// next part of a run file read in parallel): the later part's newest state
// wins, the first divergence stays, alert counts add up. Both must have
// the same variants and layers.
func (t *Standings) Merge(later *Standings) {
	for i := range t.Variants {
		if i >= len(later.Variants) {
			return
		}
		v, l := &t.Variants[i], &later.Variants[i]
		if l.Seen {
			v.Seen, v.Step, v.Status = true, l.Step, l.Status
			v.TrainLoss, v.StepsPerSec = l.TrainLoss, l.StepsPerSec
		}
		if !math.IsNaN(l.LastTrainLoss) {
			v.LastTrainLoss = l.LastTrainLoss
		}
		v.mergeTrain(l)
		v.Best = t.best(v.Best, l.Best)
		for _, e := range l.Evals {
			v.addEval(e)
		}
		if l.Val != nil {
			v.ValStep = l.ValStep
		}
		if v.DivergedAt == 0 {
			v.DivergedAt = l.DivergedAt
		}
		for k := range v.Alerts {
			v.Alerts[k] += l.Alerts[k]
		}
		for k := range v.Outliers {
			if k < len(l.Outliers) {
				v.Outliers[k] += l.Outliers[k]
			}
		}
	}
}

// mergeTrain joins the train windows of two consecutive parts: a later
// part that saw a val evaluation has the newest closed window; its open
// window extends v's when it saw none.
func (v *VariantStanding) mergeTrain(l *VariantStanding) {
	if l.closes > 0 {
		if l.closes == 1 && v.openN > 0 {
			// l's one closed window began in v's open window.
			v.closedSum, v.closedN = v.openSum+l.closedSum, v.openN+l.closedN
			v.TrainFrom = v.openFrom
			v.Train = l.Train
			if !l.trainFromEval {
				v.Train = v.closedSum / float64(v.closedN)
			}
		} else {
			v.closedSum, v.closedN = l.closedSum, l.closedN
			v.Train, v.TrainFrom = l.Train, l.TrainFrom
		}
		v.TrainTo, v.trainFromEval, v.closes = l.TrainTo, l.trainFromEval, v.closes+l.closes
		v.openSum, v.openN, v.openFrom, v.openTo = l.openSum, l.openN, l.openFrom, l.openTo
		return
	}
	if l.openN == 0 {
		return
	}
	if v.openN == 0 {
		v.openFrom = l.openFrom
	}
	v.openSum += l.openSum
	v.openN += l.openN
	v.openTo = l.openTo
	if v.closes == 0 {
		v.Train, v.TrainFrom, v.TrainTo = v.openSum/float64(v.openN), v.openFrom, v.openTo
	}
}
