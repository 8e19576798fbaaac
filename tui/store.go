package tui

import (
	"math"
	"strconv"
	"time"

	"github.com/normtop/normtop/probes"
)

// maxEvents bounds the events list (the oldest are dropped and counted).
const maxEvents = 2000

// seriesCapacity is the bucket bound of every series: above the widest
// chart's data width at 240 columns (≈230 points), half the probes default,
// so 8 variants × 12 layers × 18 probes hold ≈ 20 MiB, not 40.
const seriesCapacity = 256

// variantData is everything drawn for one variant.
type variantData struct {
	label string // probes.VariantMeta.Label: the spec (or name), " s<seed>" in a multi-seed run
	group string // probes.VariantMeta.Group: the key the seeds of one spec share
	// warmups is, per layer, the warm-up window of the layer's own running
	// statistics and the probes it applies to (probes.RunMeta.LayerWarmup:
	// the variant spec's, or what a PyTorch stream's header says).
	warmups []probes.Warmup

	idx int
	hs  *histories // the run's series, shared by all variants
	// t is where the variant stands (step, status, latest evaluations,
	// alert counts): the run's probes.Standings, which the store feeds.
	t *probes.VariantStanding

	// outlier[l][p] is the step of the latest outlier alert for that cell.
	outlier [][probes.NumProbes]int

	firstSpec, lastSpec *probes.Spectrum

	// smoothed[k] is the train loss under smoothing level k (k ≥ 1),
	// smoothed point by point as frames arrive (ema[k]): exact at every
	// step, where smoothing the stored buckets would see one point of each.
	smoothed []*history
	ema      []ema
}

// event is one alert with the variant that raised it.
type event struct {
	variant int
	probes.Alert
}

// store holds the dashboard's data: the bounded series of histories
// (one per variant × layer × probe and per variant × run series, created on
// the first measured value), the run's probes.Standings and the events.
type store struct {
	meta     probes.RunMeta
	hs       *histories
	variants []variantData
	tally    *probes.Standings
	// folded: the source folds the Frames into tally itself (a live run's
	// writer, through the feed), so add must not fold them again.
	folded  bool
	events  []event
	dropped int // events dropped beyond maxEvents
	step    int // highest step seen over all variants
	epoch   float64
	elapsed time.Duration
	frames  int
	total   int // total steps from the run config, 0 if unknown
	// writer is the latest resource report of a stream's writing process
	// (python/normtop's system=True), with the step it came with.
	writer     *probes.System
	writerStep int
	inputs     *inputHists // the layers' input histograms (inputhist.go)
}

func newStore(meta probes.RunMeta) *store {
	s := &store{meta: meta, hs: newHistories(seriesCapacity)}
	if v, err := strconv.Atoi(meta.Config["steps"]); err == nil && v > 0 {
		s.total = v
	}
	s.reset()
	return s
}

// reset drops all data (backward seek in replay).
func (s *store) reset() {
	s.hs.Reset()
	s.variants = make([]variantData, len(s.meta.Variants))
	s.tally = probes.NewStandings(s.meta)
	for i, vm := range s.meta.Variants {
		v := &s.variants[i]
		v.idx, v.hs, v.t = i, s.hs, &s.tally.Variants[i]
		v.group, v.label = vm.Group(), vm.Label()
		v.outlier = make([][probes.NumProbes]int, len(s.meta.Layers))
		v.smoothed = make([]*history, len(smoothWeights))
		v.ema = make([]ema, len(smoothWeights))
		for k := 1; k < len(smoothWeights); k++ {
			v.smoothed[k] = newHistory(seriesCapacity)
			v.ema[k] = newEMA(smoothWeights[k])
		}
		v.warmups = make([]probes.Warmup, len(s.meta.Layers))
		for l, name := range s.meta.Layers {
			v.warmups[l], _ = s.meta.LayerWarmup(i, name)
		}
	}
	s.inputs = newInputHists(s.meta)
	s.events = s.events[:0]
	s.dropped, s.step, s.epoch, s.elapsed, s.frames = 0, 0, 0, 0, 0
}

// warmup is the warm-up window of probe p at layer l (0 where the probe
// is not measured against the layer's own running statistics: shadows and
// gradients have none).
func (v *variantData) warmup(l int, p probes.Probe) int {
	if l < 0 || l >= len(v.warmups) || !v.warmups[l].Applies(p) {
		return 0
	}
	return v.warmups[l].Steps
}

// add ingests one frame. Frames for unknown variants are ignored; extra
// layers beyond the meta's are ignored.
func (s *store) add(f *probes.Frame) {
	if f.Variant < 0 || f.Variant >= len(s.variants) {
		return
	}
	s.frames++
	v := &s.variants[f.Variant]
	if !s.folded {
		s.tally.Fold(f)
	}
	s.step = max(s.step, f.Step)
	s.epoch = math.Max(s.epoch, f.Epoch)
	s.elapsed = max(s.elapsed, f.Elapsed)
	if f.System != nil && f.Step >= s.writerStep {
		s.writer, s.writerStep = f.System, f.Step
	}
	s.hs.Add(*f)
	s.inputs.add(f)
	if x := f.TrainLoss; !math.IsNaN(x) && !math.IsInf(x, 0) {
		for k := 1; k < len(v.smoothed); k++ {
			v.smoothed[k].Add(f.Step, v.ema[k].add(x))
		}
	}
	if sp := f.Spectrum; sp != nil && len(sp.Sigma) > 0 {
		if v.firstSpec == nil {
			v.firstSpec = sp
		}
		v.lastSpec = sp
	}
	for _, a := range f.Alerts {
		if a.Kind == probes.AlertOutlier && a.Layer >= 0 && a.Layer < len(v.outlier) && a.Probe < probes.NumProbes {
			v.outlier[a.Layer][a.Probe] = a.Step
		}
		s.addEvent(event{variant: f.Variant, Alert: a})
	}
}

// addEvent inserts e in step order (variants interleave, so an alert can
// arrive after a later step's), dropping the oldest beyond maxEvents.
func (s *store) addEvent(e event) {
	if len(s.events) == maxEvents {
		copy(s.events, s.events[1:])
		s.events = s.events[:maxEvents-1]
		s.dropped++
	}
	i := len(s.events)
	for i > 0 && s.events[i-1].Step > e.Step {
		i--
	}
	s.events = append(s.events, event{})
	copy(s.events[i+1:], s.events[i:])
	s.events[i] = e
}

// probe is the series of probe p at layer l, nil when never measured.
func (v *variantData) probe(l int, p probes.Probe) *history {
	return v.hs.Probe(v.idx, l, p)
}

// smoothedTrain is the train loss under smoothing level k, nil when k is
// off or out of range.
func (v *variantData) smoothedTrain(k int) *history {
	if k <= 0 || k >= len(v.smoothed) {
		return nil
	}
	return v.smoothed[k]
}

// series is a run-level series (train loss, val loss, gap, ...).
func (v *variantData) series(r runSeries) *history {
	return v.hs.Run(v.idx, r)
}

// hasProbe reports whether the variant measured probe p on any layer.
func (v *variantData) hasProbe(p probes.Probe) bool {
	for l := range v.outlier {
		if h := v.probe(l, p); h != nil {
			if _, _, ok := h.Last(); ok {
				return true
			}
		}
	}
	return false
}

// allStopped reports whether every variant stopped (done, diverged or
// stopped), and there is at least one.
func (s *store) allStopped() bool {
	for i := range s.variants {
		if s.tally.Variants[i].Status == probes.Running {
			return false
		}
	}
	return len(s.variants) > 0
}
