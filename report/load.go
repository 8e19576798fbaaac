package report

import (
	"math"
	"runtime"
	"strconv"
	"sync"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// Run is what the report keeps of one run file after one pass over it: the
// header, how the file ends, and one replicate per variant. The probe
// values themselves are summarised and dropped before Read returns.
type Run struct {
	Path   string
	Meta   probes.RunMeta
	State  record.State
	End    *record.End // nil when the file has no end record
	Damage []record.Damage
	// SecondRun is the offset where another run file begins inside this
	// one (two files concatenated), -1 for none; nothing after it is read.
	SecondRun int64
	Reps      []*Replicate // one per variant, in header order
	// Unparsed lists variant specs this normtop does not know: they are
	// summarised without a warm-up window.
	Unparsed []string
}

// Replicate is one variant of one run file: one seed of a variant.
type Replicate struct {
	Run     *Run
	Variant int
	Seed    int64
	Warmup  probes.Warmup // the variant spec's window
	// LayerWarmup is each layer's window: the spec's, or what the header
	// says of the layer (probes.RunMeta.LayerWarmup); nil: Warmup for all.
	LayerWarmup []probes.Warmup
	Standing    probes.VariantStanding

	FinalVal     float64 // metric of the last val evaluation
	BestVal      float64 // best metric over the val evaluations
	FinalValLoss float64 // loss of the last val evaluation
	FinalTrain   float64 // the train loss every output prints (probes.VariantStanding.Train)
	// TrainTail is the mean train loss over the last 10% of the steps:
	// finding (vii-b)'s target, which its trailing means are compared with
	// over the same window. Not printed as "the train loss".
	TrainTail float64
	Gap       float64 // the last val evaluation's generalization gap (probes.Eval.Gap)
	GapTrend  float64 // least-squares slope of the gap over the second half of the val evaluations, per 1,000 steps
	ValEvals  int

	// TrainLoss holds the finite train losses in step order (finding
	// vii's steps to a loss).
	TrainLoss []float32

	Spectrum *probes.Spectrum // the last one recorded, nil without an embedding
	// RankMove is how far the effective rank moved over the last quarter of
	// the run: |last − first| / first over the spectra recorded in steps
	// (T − ⌊T/4⌋, T] (docs/findings.md iv: "still moving" above 1%); NaN with
	// fewer than two spectra there.
	RankMove float64

	// Batches is each training step's batch shape, in step order, for the
	// steps whose frame recorded one (none in older run files).
	Batches []StepBatch

	// Step1 is every layer's probe values at training step 1 (at the
	// initial weights: finding vi-a); nil when the file has no step 1.
	Step1 []probes.LayerValues

	Layers []LayerStats // one per RunMeta.Layers entry

	// Curves are the series the figures draw (figure.go), thinned.
	Curves *Curves
}

// LayerStats summarises one layer of one replicate.
type LayerStats struct {
	Probes [probes.NumProbes]ProbeStats
	// Theorem 1 (Xu et al.), from the row-averaged gradient probes measured
	// at the same step: the largest |dx_mean|/√dx_var (0 where mean(dx) = 0
	// holds per row) and the median of dx_var/dy_var (the mean of 1/D² when
	// var(dx) = var(g)/D², as for detachnorm).
	MeanRatioMax float64
	VarRatioMed  float64
	TheoremN     int // steps with both dx and dy measured
}

// ProbeStats summarises one probe series over its judged steps: after its
// start-up window (docs/findings.md; none for shadow distances and every other
// probe).
type ProbeStats struct {
	N         int     // finite values summarised (after the window)
	Skipped   int     // values in the window, left out
	Window    int     // the window: steps 1..Window are skipped (0: none)
	NonFinite int     // NaN/Inf values, left out
	Median    float64 // of the values after the window
	P99       float64
	Max       float64
	Trend     float64 // growth: median of the last quarter / median of the first quarter after the window
	// Outliers (docs/findings.md): values over 10× the median of the previous
	// 100 steps, for magnitude probes (NaN rates for signed ones).
	Outliers      int
	OutliersPer1k float64 // per 1,000 training steps after the window
	OutFirst      int     // outliers in the first quarter after the window
	OutLast       int     // outliers in the last quarter of the run
	// Persistence is OutLast/OutFirst (the quarters have one length): NaN
	// when neither has an outlier, +Inf when only the last has.
	Persistence float64
	// OutlierSteps are the outliers' steps (batches.go lists them with
	// their batches).
	OutlierSteps []int
}

// P99Med is p99/median, the tail heaviness PowerNorm's Figures 2-4 show;
// NaN unless the median is positive (a ratio to a signed probe's median,
// such as dx_mean's, says nothing about its tail).
func (s ProbeStats) P99Med() float64 { return ratio(s.P99, s.Median) }

// MaxMed is max/median, NaN unless the median is positive.
func (s ProbeStats) MaxMed() float64 { return ratio(s.Max, s.Median) }

// ratio is a/b for a positive b, else NaN.
func ratio(a, b float64) float64 {
	if !(b > 0) || math.IsNaN(a) {
		return math.NaN()
	}
	return a / b
}

// seriesAcc collects one probe series while the file is read: every finite
// value, in step order, with its step.
type seriesAcc struct {
	vals      []float32
	steps     stepSeq
	nonFinite int
}

// rankPoint is one recorded spectrum's effective rank.
type rankPoint struct {
	step int
	rank float64
}

type evalPoint struct {
	step int
	e    probes.Eval
}

// repAcc collects one variant while the file is read.
type repAcc struct {
	series []seriesAcc // layer*NumProbes + probe
	ratios [][]float32 // per layer: dx_var/dy_var
	meanR  []float64   // per layer: max |dx_mean|/√dx_var
	train  []float32   // finite train losses, in step order
	vals   []evalPoint
	step1  []probes.LayerValues // the layers of the step-1 Frame
	ranks  []rankPoint          // every spectrum's effective rank, in step order
	// batches are the recorded batch shapes, in step order
	batches []StepBatch

	// trainSteps are the steps of train (the figures' x).
	trainSteps stepSeq
}

// layerWarmup is layer l's warm-up window.
func (rep *Replicate) layerWarmup(l int) probes.Warmup {
	if l < len(rep.LayerWarmup) {
		return rep.LayerWarmup[l]
	}
	return rep.Warmup
}

func parseSeed(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// finish computes a replicate's summaries from what was collected. The
// layers' series are summarised in parallel: they are independent and the
// selections are the report's main cost after decoding.
func (a *repAcc) finish(rep *Replicate, nl int, curves bool) {
	rep.FinalTrain, rep.TrainTail = rep.Standing.Train, lastTenthMean(a.train)
	rep.TrainLoss = a.train
	rep.FinalVal, rep.BestVal, rep.FinalValLoss, rep.Gap, rep.GapTrend = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	rep.ValEvals = len(a.vals)
	rep.Step1 = a.step1
	rep.Batches = a.batches
	// The final and best val evaluations are where the variant stands
	// (probes.VariantStanding), as every other summary prints them.
	rep.BestVal = rep.Standing.Best
	if last := rep.Standing.Val; last != nil {
		rep.FinalVal, rep.FinalValLoss, rep.Gap = last.Metric, last.Loss, last.Gap()
	}
	if n := len(a.vals); n > 0 {
		var xs, ys []float64
		for _, ev := range a.vals[n/2:] {
			if g := ev.e.Gap(); !math.IsNaN(g) && !math.IsInf(g, 0) {
				xs, ys = append(xs, float64(ev.step)/1000), append(ys, g)
			}
		}
		rep.GapTrend = slope(xs, ys)
	}
	if rep.Standing.Diverged() {
		// A diverged variant has no final metric worth averaging.
		rep.FinalVal, rep.FinalValLoss, rep.Gap, rep.FinalTrain, rep.TrainTail = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	rep.Layers = make([]LayerStats, nl)
	steps := rep.Standing.Step
	rep.RankMove = rankMove(a.ranks, steps)
	if curves {
		rep.Curves = a.curves(hSite(rep.Run.Meta.Layers)) // before summarise reorders the values
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for l := 0; l < nl; l++ {
		ls := &rep.Layers[l]
		ls.MeanRatioMax = a.meanR[l]
		ls.TheoremN = len(a.ratios[l])
		if ls.TheoremN == 0 {
			ls.MeanRatioMax = math.NaN()
		}
		layer := a.series[l*int(probes.NumProbes) : (l+1)*int(probes.NumProbes)]
		windows := startupWindows(layer, rep.layerWarmup(l), steps)
		for p := range layer {
			s, ps, pr := &layer[p], &ls.Probes[p], probes.Probe(p)
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				*ps = summarise(s, windows[p], pr, steps)
				s.vals = nil
			}()
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ls.VarRatioMed = median(a.ratios[l])
		}()
	}
	wg.Wait()
}

// summarise computes a series' statistics after its start-up window
// (steps 1..window; startupWindows); last is the variant's last training
// step.
func summarise(s *seriesAcc, window int, p probes.Probe, last int) ProbeStats {
	ps := ProbeStats{NonFinite: s.nonFinite, OutliersPer1k: math.NaN(), Persistence: math.NaN(), Window: window}
	from := s.steps.firstAfter(ps.Window)
	judged := s.vals[from:]
	ps.N, ps.Skipped = len(judged), from
	q := quartersOf(ps.Window, last)
	ps.Trend = stepTrend(s.vals, &s.steps, from, q) // before the selections reorder judged
	if p.Magnitude() && ps.N > 0 {
		out := outlierSteps(s.vals, &s.steps, from)
		ps.Outliers, ps.OutlierSteps = len(out), out
		if span := last - ps.Window; span > 0 {
			ps.OutliersPer1k = 1000 * float64(len(out)) / float64(span)
		}
		for _, st := range out {
			if q.inFirst(st) {
				ps.OutFirst++
			}
			if q.inLast(st) {
				ps.OutLast++
			}
		}
		ps.Persistence = persistence(ps.OutFirst, ps.OutLast)
	}
	ps.Max = maxOf(judged)
	qs := quantiles(judged, 0.5, 0.99)
	ps.Median, ps.P99 = qs[0], qs[1]
	return ps
}

// persistence is last/first: NaN when neither quarter has an outlier,
// +Inf when only the last has.
func persistence(first, last int) float64 {
	switch {
	case first == 0 && last == 0:
		return math.NaN()
	case first == 0:
		return math.Inf(1)
	}
	return float64(last) / float64(first)
}

// rankMove is Replicate.RankMove from the spectra's effective ranks.
func rankMove(ranks []rankPoint, last int) float64 {
	q := quartersOf(0, last)
	var in []float64
	for _, r := range ranks {
		if q.inLast(r.step) && !math.IsNaN(r.rank) {
			in = append(in, r.rank)
		}
	}
	if len(in) < 2 || !(in[0] > 0) {
		return math.NaN()
	}
	return math.Abs(in[len(in)-1]-in[0]) / in[0]
}

// lastTenthMean is the mean of the last 10% of xs (at least one value); NaN
// when xs is empty. One batch's loss is noisy; a tenth of the run is not.
func lastTenthMean(xs []float32) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	k := max(1, len(xs)/10)
	var s float64
	for _, x := range xs[len(xs)-k:] {
		s += float64(x)
	}
	return s / float64(k)
}
