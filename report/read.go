package report

import (
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// minPartSteps: below this many steps per part a file is read in one pass
// (opening and seeking a reader per part would cost more than it saves). A
// variable so that tests can cut small files into parts.
var minPartSteps = 2000

// Read reads one run file and summarises it. Errors are those of record's
// reader (missing, not a run file, newer format, damaged header) and name
// the file.
//
// Decoding is the report's main cost, so a long run is read in parallel:
// its steps are cut into one part per CPU, each part read by its own
// Reader from its own seek point (record's index makes Seek cheap), and the
// parts' values are joined in step order before the summaries.
func Read(path string) (*Run, error) { return readParts(path, runtime.GOMAXPROCS(0)) }

// readParts is Read with at most parts parts (tests force several on small files).
func readParts(path string, parts int) (*Run, error) { return readKeeping(path, parts, keepAll) }

// keep says what a read collects of each frame besides the standings and
// the evaluations: everything for a report (keepAll); for the findings'
// verdicts alone, only what they are computed from (findingsKeep).
type keep struct {
	probe   [probes.NumProbes]bool // the probe series kept, every value with its step
	batches bool                   // each step's batch shape (the outliers' batches)
	theorem bool                   // Theorem 1's per-step dx/dy ratios
	curves  bool                   // the figures' thinned series
	// sites, when not nil, keeps the series of layer l of variant v only
	// where it reports true.
	sites func(m probes.RunMeta, v, l int) bool
}

var keepAll = func() keep {
	k := keep{batches: true, theorem: true, curves: true}
	for p := range k.probe {
		k.probe[p] = true
	}
	return k
}()

// readKeeping is readParts collecting only what k keeps.
func readKeeping(path string, parts int, k keep) (*Run, error) {
	r, err := record.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	m := r.Meta()
	run := &Run{Path: path, Meta: m}
	warm, layerWarm := runWarmups(run)
	last, ok := r.LastStep()
	if !ok || parts < 1 {
		parts = 1
	}
	ps, err := readPartsOf(r, run, partBounds(last, parts), last, k)
	if err != nil {
		return nil, err
	}
	if run.End == nil {
		if end, ok := r.End(); ok {
			run.End = &end
		}
	}
	run.Damage = joinDamage(ps)
	whole := joinParts(ps, run.End)
	// A file that trained several seeds names each variant's; an older
	// (single-seed) file has 0 there and its seed in the header's config.
	// Only then is the config's seed used: a --seeds list may include 0.
	seeded := slices.ContainsFunc(m.Variants, func(vm probes.VariantMeta) bool { return vm.Seed != 0 })
	runSeed := parseSeed(m.Config["seed"])
	for v := range m.Variants {
		rep := &Replicate{Run: run, Variant: v, Seed: m.Variants[v].Seed, Warmup: warm[v],
			LayerWarmup: layerWarm[v], Standing: whole.standings.Variants[v], Spectrum: whole.spectra[v]}
		if !seeded {
			rep.Seed = runSeed
		}
		acc := joinVariant(ps, v, len(m.Layers))
		acc.finish(rep, len(m.Layers), k.curves)
		run.Reps = append(run.Reps, rep)
	}
	return run, nil
}

// runWarmups is each variant's warm-up window (from its spec) and each of
// its layers' (the spec's, or what the header says of the layer: a
// PyTorch stream's BatchNorm and its momentum). A variant whose windows
// cannot all be known is listed in run.Unparsed.
func runWarmups(run *Run) (warm []probes.Warmup, layerWarm [][]probes.Warmup) {
	m := run.Meta
	warm = make([]probes.Warmup, len(m.Variants))
	layerWarm = make([][]probes.Warmup, len(m.Variants))
	for v, vm := range m.Variants {
		warm[v], _ = probes.WarmupOf(vm.Group())
		known := true
		layerWarm[v] = make([]probes.Warmup, len(m.Layers))
		for l, name := range m.Layers {
			var ok bool
			layerWarm[v][l], ok = m.LayerWarmup(v, name)
			known = known && ok
		}
		if !known {
			// A spec this normtop cannot parse (a newer file) and no header
			// facts: summarise it without a window and say so.
			run.Unparsed = append(run.Unparsed, vm.Group())
		}
	}
	return warm, layerWarm
}

// partBounds cuts steps 1..last into at most parts parts of at least
// minPartSteps steps: part k reads steps [bounds[k], bounds[k+1]), the
// last one to the end of the file.
func partBounds(last, parts int) []int {
	parts = max(1, min(parts, last/minPartSteps))
	bounds := make([]int, parts+1)
	for k := range bounds {
		bounds[k] = 1 + k*(last/parts) // last/parts first: a forged step cannot overflow
	}
	bounds[parts] = math.MaxInt
	return bounds
}

// readPartsOf reads each part of the file (bounds: partBounds of the
// file's last step) on its own goroutine: the first with r, the others
// with their own Reader seeked to the part's first step. The last part
// also fills run's end facts (second run, state, end record).
func readPartsOf(r *record.Reader, run *Run, bounds []int, last int, k keep) ([]*part, error) {
	parts := len(bounds) - 1
	// The index's per-series counts (read without decoding a frame) size
	// each part's series for its share of the steps, so that append's
	// growth does not leave a large file's values in memory twice.
	counts := plausibleCounts(r.Stats(), run.Path)
	ps := make([]*part, parts)
	var wg sync.WaitGroup
	for i := range ps {
		ps[i] = newPart(run.Meta, k)
		share := 1.0
		if parts > 1 {
			share = 1.05 * float64(min(bounds[i+1], last+1)-bounds[i]) / float64(last)
		}
		ps[i].presize(counts, share)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ps[i].readFrom(r, run, bounds[i], bounds[i+1], i == 0, i == parts-1)
		}()
	}
	wg.Wait()
	for _, p := range ps {
		if p.err != nil {
			return nil, p.err
		}
	}
	return ps, nil
}

// readFrom reads steps [from, to) of run's file into p: with r for the
// first part, else with a Reader of its own seeked to from. The last part
// also records the file's end facts into run.
func (p *part) readFrom(r *record.Reader, run *Run, from, to int, first, last bool) {
	rd := r
	if !first {
		if rd, p.err = record.Open(run.Path); p.err != nil {
			return
		}
		defer rd.Close()
		if p.err = rd.Seek(from); p.err != nil {
			return
		}
	}
	p.err = p.read(rd, to)
	if last {
		run.SecondRun = -1
		if at, ok := rd.SecondRun(); ok {
			run.SecondRun = at
		}
		run.State = rd.State()
		if end, ok := rd.End(); ok {
			run.End = &end
		}
	}
	p.damage = rd.Damage()
}

// joinParts folds the later parts' standings and spectra into the first
// part's, in step order, then the end record's divergences.
func joinParts(ps []*part, end *record.End) *part {
	whole := ps[0]
	for _, p := range ps[1:] {
		whole.standings.Merge(p.standings)
		for v := range whole.spectra {
			if p.spectra[v] != nil {
				whole.spectra[v] = p.spectra[v]
			}
		}
	}
	if end != nil {
		whole.standings.FoldEnd(end.Diverged)
	}
	return whole
}

// part collects the frames of one step range of a run file.
type part struct {
	meta      probes.RunMeta
	keep      keep
	sites     [][]bool // variant, layer: keep.sites's answer
	accs      []repAcc
	standings *probes.Standings
	spectra   []*probes.Spectrum
	damage    []record.Damage
	err       error
}

func newPart(m probes.RunMeta, k keep) *part {
	nl := len(m.Layers)
	p := &part{meta: m, keep: k, accs: make([]repAcc, len(m.Variants)), standings: probes.NewStandings(m),
		spectra: make([]*probes.Spectrum, len(m.Variants)), sites: make([][]bool, len(m.Variants))}
	for v := range p.sites {
		p.sites[v] = make([]bool, nl)
		for l := range p.sites[v] {
			p.sites[v][l] = k.sites == nil || k.sites(m, v, l)
		}
	}
	for v := range p.accs {
		p.accs[v] = repAcc{series: make([]seriesAcc, nl*int(probes.NumProbes)),
			ratios: make([][]float32, nl), meanR: make([]float64, nl)}
	}
	return p
}

// plausibleCounts returns the index's counts, or nil when they claim more
// values than the file has bytes: presizing is only an optimisation, and a
// damaged or forged index must not make the report allocate gigabytes.
func plausibleCounts(st []record.SeriesStat, path string) []record.SeriesStat {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	var total uint64
	for _, s := range st {
		total += min(s.Count, 1<<40)
	}
	if total > uint64(fi.Size()) {
		return nil
	}
	return st
}

// presize reserves room for share of each series' count.
func (p *part) presize(counts []record.SeriesStat, share float64) {
	nl := len(p.meta.Layers)
	for _, st := range counts {
		pr, ok := probes.ProbeByName(st.Probe)
		if !ok || !p.keep.probe[pr] || st.Variant < 0 || st.Variant >= len(p.accs) || st.Layer < 0 || st.Layer >= nl || !p.sites[st.Variant][st.Layer] {
			continue
		}
		if n := float64(st.Count)*share + 64; n < 1<<31 {
			s := &p.accs[st.Variant].series[st.Layer*int(probes.NumProbes)+int(pr)]
			s.vals, s.steps.hint = make([]float32, 0, int(n)), int(n)
		}
	}
}

// read folds the frames of rd with Step < end. Each variant's steps
// increase, so once every variant has shown a frame at or past end the
// part is done; a variant that stopped early makes it read to the end.
func (p *part) read(rd *record.Reader, end int) error {
	past := make([]bool, len(p.accs))
	left := len(p.accs)
	for left > 0 {
		f, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if f.Variant < 0 || f.Variant >= len(p.accs) {
			continue
		}
		if f.Step >= end {
			if !past[f.Variant] {
				past[f.Variant] = true
				left--
			}
			continue
		}
		p.add(&f)
	}
	return nil
}

func (p *part) add(f *probes.Frame) {
	nl := len(p.meta.Layers)
	p.standings.Fold(f)
	a := &p.accs[f.Variant]
	if !math.IsNaN(f.TrainLoss) && !math.IsInf(f.TrainLoss, 0) {
		a.train = append(a.train, float32(f.TrainLoss))
		a.trainSteps.add(f.Step)
	}
	for _, e := range f.Eval {
		if probes.Split(e.Split) == probes.SplitVal {
			a.vals = append(a.vals, evalPoint{f.Step, e})
		}
	}
	if f.Spectrum != nil {
		p.spectra[f.Variant] = f.Spectrum
		a.ranks = append(a.ranks, rankPoint{f.Spectrum.Step, f.Spectrum.EffRank})
	}
	if f.Step == 1 && f.Layers != nil {
		a.step1 = append([]probes.LayerValues(nil), f.Layers...)
	}
	if f.Batch.Known() && p.keep.batches {
		a.batches = append(a.batches, StepBatch{Step: f.Step, Shape: f.Batch})
	}
	for l := range f.Layers {
		if l >= nl {
			break
		}
		lv := &f.Layers[l]
		ss := a.series[l*int(probes.NumProbes) : (l+1)*int(probes.NumProbes)]
		site := p.sites[f.Variant][l]
		for pr, x := range lv {
			if math.IsNaN(x) || !site || !p.keep.probe[pr] {
				continue // not measured at this step, or not kept
			}
			s := &ss[pr]
			if math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
				s.nonFinite++
				continue
			}
			// Every value is kept with its step: the start-up window
			// (docs/findings.md) depends on the whole series and is
			// decided when it is summarised.
			s.vals = append(s.vals, float32(x))
			s.steps.add(f.Step)
		}
		if p.keep.theorem && lv.Has(probes.DxMean) && lv.Has(probes.DxVar) && lv.Has(probes.DyVar) {
			if r := math.Abs(lv[probes.DxMean]) / math.Sqrt(lv[probes.DxVar]); r > a.meanR[l] {
				a.meanR[l] = r
			}
			if q := lv[probes.DxVar] / lv[probes.DyVar]; !math.IsNaN(q) && !math.IsInf(q, 0) {
				a.ratios[l] = append(a.ratios[l], float32(q))
			}
		}
	}
}

// joinVariant joins variant v's collections from the parts in step order,
// releasing each part's copy as it goes.
func joinVariant(ps []*part, v, nl int) *repAcc {
	if len(ps) == 1 {
		return &ps[0].accs[v]
	}
	out := &repAcc{series: make([]seriesAcc, nl*int(probes.NumProbes)), ratios: make([][]float32, nl), meanR: make([]float64, nl)}
	for i := range out.series {
		n := 0
		for _, p := range ps {
			n += len(p.accs[v].series[i].vals)
		}
		s := &out.series[i]
		s.vals = make([]float32, 0, n)
		for _, p := range ps {
			ps := &p.accs[v].series[i]
			s.vals = append(s.vals, ps.vals...)
			s.steps.appendSeq(&ps.steps)
			s.nonFinite += ps.nonFinite
			ps.vals, ps.steps = nil, stepSeq{}
		}
	}
	for l := 0; l < nl; l++ {
		for _, p := range ps {
			out.ratios[l] = append(out.ratios[l], p.accs[v].ratios[l]...)
			out.meanR[l] = max(out.meanR[l], p.accs[v].meanR[l])
		}
	}
	for _, p := range ps {
		if p.accs[v].step1 != nil {
			out.step1 = p.accs[v].step1
		}
		out.train = append(out.train, p.accs[v].train...)
		out.trainSteps.appendSeq(&p.accs[v].trainSteps)
		out.vals = append(out.vals, p.accs[v].vals...)
		out.ranks = append(out.ranks, p.accs[v].ranks...)
		out.batches = append(out.batches, p.accs[v].batches...)
		p.accs[v] = repAcc{}
	}
	return out
}

// joinDamage lists the damaged regions the parts' readers skipped, each
// once (two parts may both pass one).
func joinDamage(ps []*part) []record.Damage {
	var out []record.Damage
	for _, p := range ps {
		for _, d := range p.damage {
			if !slices.ContainsFunc(out, func(o record.Damage) bool { return o.Offset == d.Offset }) {
				out = append(out, d)
			}
		}
	}
	slices.SortFunc(out, func(a, b record.Damage) int { return int(a.Offset - b.Offset) })
	return out
}
