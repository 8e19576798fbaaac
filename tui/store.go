package tui

import (
	"math"
	"strconv"
	"time"

	"github.com/normtop/normtop/probes"
)

// Capacities of the bounded histories: loss curves get the full chart
// resolution, per-layer probe series (drawn as sparklines or one detail
// chart) a quarter of it, to keep 8 variants × 12 layers × 18 probes small.
const (
	curveCapacity = probes.DefaultHistoryCapacity
	probeCapacity = probes.DefaultHistoryCapacity / 2
	maxEvents     = 2000
)

// variantData is everything drawn for one variant.
type variantData struct {
	label string // spec when it carries options, else the name

	train, val, gap, metric, effRank *probes.History
	// Train losses since the previous evaluation: the gap compares the
	// validation loss with their mean, the train loss over the same stretch.
	trainSum                       float64
	trainCount                     int
	lastTrain, lastVal, lastMetric float64
	haveVal                        bool
	lastTest                       *probes.Eval

	step        int
	epoch       float64
	status      probes.Status
	stoppedAt   int // step of the Diverged/Stopped/Done frame
	stepsPerSec float64
	elapsed     time.Duration

	// probe[l][p] is created on the first measured value (many probes never
	// apply to a variant, e.g. pn_nu outside PowerNorm).
	probe [][probes.NumProbes]*probes.History
	// outlier[l][p] is the step of the latest outlier alert for that cell.
	outlier [][probes.NumProbes]int

	firstSpec, lastSpec *probes.Spectrum
}

// event is one alert with the variant that raised it.
type event struct {
	variant int
	probes.Alert
}

// store holds the dashboard's data: bounded histories fed from Frames.
type store struct {
	meta     probes.RunMeta
	variants []variantData
	events   []event
	dropped  int // events dropped beyond maxEvents
	step     int // highest step seen over all variants
	epoch    float64
	elapsed  time.Duration
	frames   int
	bad      int // frames naming a variant the meta does not have
	total    int // total steps from the run config, 0 if unknown
}

func newStore(meta probes.RunMeta) *store {
	s := &store{meta: meta}
	if v, err := strconv.Atoi(meta.Config["steps"]); err == nil && v > 0 {
		s.total = v
	}
	s.reset()
	return s
}

// reset drops all data (backward seek in replay).
func (s *store) reset() {
	s.variants = make([]variantData, len(s.meta.Variants))
	for i, vm := range s.meta.Variants {
		v := &s.variants[i]
		v.label = vm.Name
		if vm.Spec != "" {
			v.label = vm.Spec
		}
		v.train = probes.NewHistory(curveCapacity)
		v.val = probes.NewHistory(curveCapacity)
		v.gap = probes.NewHistory(curveCapacity)
		v.metric = probes.NewHistory(curveCapacity)
		v.effRank = probes.NewHistory(curveCapacity)
		v.probe = make([][probes.NumProbes]*probes.History, len(s.meta.Layers))
		v.outlier = make([][probes.NumProbes]int, len(s.meta.Layers))
	}
	s.events = s.events[:0]
	s.dropped, s.step, s.epoch, s.elapsed, s.frames, s.bad = 0, 0, 0, 0, 0, 0
}

// add ingests one frame. Frames for unknown variants are counted and
// ignored; extra layers beyond the meta's are ignored.
func (s *store) add(f *probes.Frame) {
	if f.Variant < 0 || f.Variant >= len(s.variants) {
		s.bad++
		return
	}
	s.frames++
	v := &s.variants[f.Variant]
	v.step, v.epoch, v.status = f.Step, f.Epoch, f.Status
	if f.Status != probes.Running && v.stoppedAt == 0 {
		v.stoppedAt = f.Step
	}
	if f.StepsPerSec > 0 {
		v.stepsPerSec = f.StepsPerSec
	}
	v.elapsed = max(v.elapsed, f.Elapsed)
	s.step = max(s.step, f.Step)
	s.epoch = math.Max(s.epoch, f.Epoch)
	s.elapsed = max(s.elapsed, f.Elapsed)

	if !math.IsNaN(f.TrainLoss) && !math.IsInf(f.TrainLoss, 0) {
		v.train.Add(f.Step, f.TrainLoss)
		v.lastTrain = f.TrainLoss
		v.trainSum += f.TrainLoss
		v.trainCount++
	}
	for _, e := range f.Eval {
		switch e.Split {
		case "val":
			v.val.Add(f.Step, e.Loss)
			v.metric.Add(f.Step, e.Metric)
			v.lastVal, v.lastMetric, v.haveVal = e.Loss, e.Metric, true
			if v.trainCount > 0 {
				v.gap.Add(f.Step, e.Loss-v.trainSum/float64(v.trainCount))
				v.trainSum, v.trainCount = 0, 0
			}
		case "test":
			e := e
			v.lastTest = &e
		}
	}
	for l := range min(len(f.Layers), len(v.probe)) {
		lv := &f.Layers[l]
		for p := range probes.NumProbes {
			x := lv[p]
			if math.IsNaN(x) {
				continue
			}
			h := v.probe[l][p]
			if h == nil {
				h = probes.NewHistory(probeCapacity)
				v.probe[l][p] = h
			}
			h.Add(f.Step, x)
		}
	}
	if sp := f.Spectrum; sp != nil && len(sp.Sigma) > 0 {
		if v.firstSpec == nil {
			v.firstSpec = sp
		}
		v.lastSpec = sp
		v.effRank.Add(sp.Step, sp.EffRank)
	}
	for _, a := range f.Alerts {
		if a.Kind == probes.AlertOutlier && a.Layer >= 0 && a.Layer < len(v.outlier) && a.Probe < probes.NumProbes {
			v.outlier[a.Layer][a.Probe] = a.Step
		}
		if len(s.events) == maxEvents {
			copy(s.events, s.events[1:])
			s.events = s.events[:maxEvents-1]
			s.dropped++
		}
		s.events = append(s.events, event{variant: f.Variant, Alert: a})
	}
}

// hasProbe reports whether variant v measured probe p on any layer.
func (v *variantData) hasProbe(p probes.Probe) bool {
	for l := range v.probe {
		if v.probe[l][p] != nil {
			return true
		}
	}
	return false
}

// eventSteps lists the events' steps, for the events screen's Enter.
func (s *store) eventSteps() []int {
	out := make([]int, len(s.events))
	for i, e := range s.events {
		out[i] = e.Step
	}
	return out
}
