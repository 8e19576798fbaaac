package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/normtop/normtop/probes"
)

// Group is one variant spec of one model across the seeds (replicates) the
// run files hold: what the report's tables show as "mean ± sd".
type Group struct {
	Model  string
	Spec   string // full spec, e.g. "powernorm:alpha_fwd=0.95"
	Setup  string // the setup keys that differ between this model's runs (setup.go), "" when none does
	Name   string // registry name, e.g. "powernorm"
	Metric probes.Metric
	Layers []string
	D      int // embedding width for the spectrum's σ_k (RunMeta.Config "d_model"); 0 when unknown
	Warmup probes.Warmup
	Reps   []*Replicate // in seed order

	Diverged int // replicates stopped by the divergence guard

	FinalVal, BestVal, FinalValLoss, FinalTrain, Gap, GapTrend probes.MeanSD
	TrainTail                                                  probes.MeanSD // Replicate.TrainTail: finding (vii-b)'s target

	EffRank, SigmaQuarter, SigmaHalf probes.MeanSD // σ_k/σ_1 at k = d/4 and d/2
	SigmaThreeQuarter, SigmaMean     probes.MeanSD // σ_k/σ_1 at k = 3d/4, and its mean over all k
	SpectrumStep                     int           // step of the spectra (the last replicate's)
	// RankMove is the largest move of the effective rank over the last
	// quarter among the seeds (Replicate.RankMove); NaN when no seed has
	// two spectra there.
	RankMove float64

	Probes  [][probes.NumProbes]ProbeAgg // per layer
	Theorem []TheoremCheck               // per layer
}

// ProbeAgg is one probe of one layer over the replicates.
type ProbeAgg struct {
	N                                            int           // values summarised, all replicates together
	Skipped                                      int           // values in start-up windows
	Window                                       probes.MeanSD // the window's last step per seed
	Median, P99Med, MaxMed, OutliersPer1k, Trend probes.MeanSD
	Persistence                                  probes.MeanSD // per seed (seeds with no outlier in either quarter left out)
	// OutFirst and OutLast are the outliers of the first and last quarters,
	// all seeds together: Persistence() pools them.
	OutFirst, OutLast int
}

// PooledPersistence is the outliers of the last quarters over those of the
// first quarters after the window, all seeds together (NaN when neither
// has one, +Inf when only the last does).
func (pa ProbeAgg) PooledPersistence() float64 { return persistence(pa.OutFirst, pa.OutLast) }

// Seeds lists the replicates' seeds.
func (g *Group) Seeds() []int64 {
	s := make([]int64, len(g.Reps))
	for i, r := range g.Reps {
		s[i] = r.Seed
	}
	return s
}

// SeedList is the seeds as text, e.g. "1,2,3".
func (g *Group) SeedList() string {
	b := []byte{}
	for i, s := range g.Seeds() {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, s, 10)
	}
	return string(b)
}

// Label names the group in tables: its spec, prefixed by the model when the
// report covers several models.
func (g *Group) Label(multiModel bool) string {
	l := g.Spec
	if g.Setup != "" {
		l += " (" + g.Setup + ")"
	}
	if multiModel {
		return g.Model + " " + l
	}
	return l
}

// groupRuns checks that the runs may be compared and groups their variants
// by (model, spec) across seeds.
func groupRuns(runs []*Run) ([]*Group, error) {
	if err := compatible(runs); err != nil {
		return nil, err
	}
	var groups []*Group
	varying := varyingSetup(runs)
	find := func(model, spec, setup string) *Group {
		for _, g := range groups {
			if g.Model == model && g.Spec == spec && g.Setup == setup {
				return g
			}
		}
		return nil
	}
	for _, run := range runs {
		m := run.Meta
		for _, rep := range run.Reps {
			vm := m.Variants[rep.Variant]
			spec := vm.Group()
			setup := setupLabel(m, varying[m.Model])
			g := find(m.Model, spec, setup)
			if g == nil {
				g = &Group{Model: m.Model, Spec: spec, Setup: setup, Name: vm.Name, Metric: m.MetricKind(),
					Layers: m.Layers, Warmup: rep.Warmup}
				g.D = m.EmbeddingWidth()
				groups = append(groups, g)
			}
			for _, o := range g.Reps {
				if o.Seed == rep.Seed {
					return nil, fmt.Errorf("%s and %s both hold %s with seed %d: give each seed of a variant once",
						o.Run.Path, run.Path, m.VariantLabel(rep.Variant), rep.Seed)
				}
			}
			g.Reps = append(g.Reps, rep)
		}
	}
	for _, g := range groups {
		slices.SortStableFunc(g.Reps, func(a, b *Replicate) int {
			switch {
			case a.Seed < b.Seed:
				return -1
			case a.Seed > b.Seed:
				return 1
			}
			return 0
		})
		g.aggregate()
	}
	return groups, nil
}

// compatible allows runs of one model on one data set (with the same norm
// sites unless their placement or number of blocks differ), or CNN runs
// (cnn, resnet) next to Transformer runs (PowerNorm's Figure 2 compares
// BatchNorm in both).
func compatible(runs []*Run) error {
	models := map[string]*Run{}
	for _, r := range runs {
		if o, ok := models[r.Meta.Model]; ok {
			if dataOf(o) != dataOf(r) {
				return fmt.Errorf("%s (%s on %s) and %s (%s on %s) are runs on different data: report compares runs of one model and data",
					o.Path, o.Meta.Model, dataOf(o), r.Path, r.Meta.Model, dataOf(r))
			}
			if !slices.Equal(o.Meta.Layers, r.Meta.Layers) && sameBlocks(o.Meta, r.Meta) {
				return fmt.Errorf("%s and %s are %s runs with different norm sites (%d vs %d): report compares runs of one model configuration",
					o.Path, r.Path, r.Meta.Model, len(o.Meta.Layers), len(r.Meta.Layers))
			}
			if o.Meta.Metric != r.Meta.Metric {
				return fmt.Errorf("%s and %s measure different metrics (%s vs %s)", o.Path, r.Path, o.Meta.Metric, r.Meta.Metric)
			}
			continue
		}
		models[r.Meta.Model] = r
	}
	if len(models) <= 1 {
		return nil
	}
	if models["transformer"] != nil && len(models) <= 3 {
		cnnOnly := true
		for m := range models {
			cnnOnly = cnnOnly && (m == "transformer" || isCNN(m))
		}
		if cnnOnly {
			return nil // PowerNorm's Fig. 2: the CNN side of (ii)
		}
	}
	var a, b *Run
	for _, r := range runs {
		if a == nil {
			a = r
		} else if r.Meta.Model != a.Meta.Model {
			b = r
			break
		}
	}
	return fmt.Errorf("%s is a %s run and %s a %s run: report compares runs of one model and data (or cnn and resnet runs next to transformer runs, for PowerNorm's Fig. 2)",
		a.Path, a.Meta.Model, b.Path, b.Meta.Model)
}

// dataOf names a run's data set: the --data value when the header has it,
// else the data description.
func dataOf(r *Run) string {
	if d := r.Meta.Config["data"]; d != "" {
		if p := r.Meta.Config["data_path"]; p != "" {
			return d + " " + p
		}
		return d
	}
	return r.Meta.Data
}

func (g *Group) aggregate() {
	each := func(f func(r *Replicate) float64) probes.MeanSD {
		xs := make([]float64, len(g.Reps))
		for i, r := range g.Reps {
			xs[i] = f(r)
		}
		return probes.NewMeanSD(xs)
	}
	for _, r := range g.Reps {
		if r.Standing.Diverged() {
			g.Diverged++
		}
	}
	g.FinalVal = each(func(r *Replicate) float64 { return r.FinalVal })
	g.BestVal = each(func(r *Replicate) float64 { return r.BestVal })
	g.FinalValLoss = each(func(r *Replicate) float64 { return r.FinalValLoss })
	g.FinalTrain = each(func(r *Replicate) float64 { return r.FinalTrain })
	g.TrainTail = each(func(r *Replicate) float64 { return r.TrainTail })
	g.Gap = each(func(r *Replicate) float64 { return r.Gap })
	g.GapTrend = each(func(r *Replicate) float64 { return r.GapTrend })
	g.EffRank = each(func(r *Replicate) float64 {
		if r.Spectrum == nil {
			return math.NaN()
		}
		return r.Spectrum.EffRank
	})
	g.SigmaQuarter = each(func(r *Replicate) float64 { return sigmaAt(r.Spectrum, g.D, 4) })
	g.SigmaHalf = each(func(r *Replicate) float64 { return sigmaAt(r.Spectrum, g.D, 2) })
	g.SigmaThreeQuarter = each(func(r *Replicate) float64 { return sigmaAtFrac(r.Spectrum, g.D, 3, 4) })
	g.SigmaMean = each(func(r *Replicate) float64 { return sigmaMean(r.Spectrum) })
	g.RankMove = math.NaN()
	for _, r := range g.Reps {
		if !math.IsNaN(r.RankMove) && !(r.RankMove <= g.RankMove) {
			g.RankMove = r.RankMove
		}
	}
	for _, r := range g.Reps {
		if r.Spectrum != nil {
			g.SpectrumStep = r.Spectrum.Step
		}
	}
	nl := len(g.Layers)
	g.Probes = make([][probes.NumProbes]ProbeAgg, nl)
	g.Theorem = make([]TheoremCheck, nl)
	for l := 0; l < nl; l++ {
		for p := 0; p < int(probes.NumProbes); p++ {
			st := func(f func(s ProbeStats) float64) probes.MeanSD {
				return each(func(r *Replicate) float64 {
					if r.Layers[l].Probes[p].N == 0 {
						return math.NaN()
					}
					return f(r.Layers[l].Probes[p])
				})
			}
			pa := &g.Probes[l][p]
			for _, r := range g.Reps {
				pa.N += r.Layers[l].Probes[p].N
				pa.Skipped += r.Layers[l].Probes[p].Skipped
				pa.OutFirst += r.Layers[l].Probes[p].OutFirst
				pa.OutLast += r.Layers[l].Probes[p].OutLast
			}
			pa.Window = st(func(s ProbeStats) float64 { return float64(s.Window) })
			pa.Persistence = st(func(s ProbeStats) float64 { return s.Persistence })
			pa.Median = st(func(s ProbeStats) float64 { return s.Median })
			pa.P99Med = st(ProbeStats.P99Med)
			pa.MaxMed = st(ProbeStats.MaxMed)
			pa.OutliersPer1k = st(func(s ProbeStats) float64 { return s.OutliersPer1k })
			pa.Trend = st(func(s ProbeStats) float64 { return s.Trend })
		}
		g.Theorem[l] = theoremCheck(g, l)
	}
}

// sigmaAt is σ_k/σ_1 at k = d/div (1-based: Sigma[k−1]); d is the model
// width, or the number of singular values when the header does not say.
func sigmaAt(s *probes.Spectrum, d, div int) float64 { return sigmaAtFrac(s, d, 1, div) }

// sigmaMean is the mean of σ_k/σ_1 over every k of the spectrum.
func sigmaMean(s *probes.Spectrum) float64 {
	if s == nil || len(s.Sigma) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range s.Sigma {
		sum += x
	}
	return sum / float64(len(s.Sigma))
}

// sigmaAtFrac is σ_k/σ_1 at k = num·d/div.
func sigmaAtFrac(s *probes.Spectrum, d, num, div int) float64 {
	if s == nil || len(s.Sigma) == 0 {
		return math.NaN()
	}
	if d <= 0 {
		d = len(s.Sigma)
	}
	k := num * d / div
	if k < 1 || k > len(s.Sigma) {
		return math.NaN()
	}
	return s.Sigma[k-1]
}
