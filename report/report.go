package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// Report is the diagnosis of one or more run files: per-variant outcomes
// and probe summaries over seeds, Theorem-1 checks and the papers' findings.
type Report struct {
	Runs       []*Run
	Groups     []*Group
	Findings   []Finding
	MultiModel bool
}

// New groups the runs' variants and judges the findings. It fails (one
// line) when the runs may not be compared: different models other than cnn
// next to transformer, different data, or one seed of a variant twice.
func New(runs []*Run) (*Report, error) {
	groups, err := groupRuns(runs)
	if err != nil {
		return nil, err
	}
	r := &Report{Runs: runs, Groups: groups}
	for _, g := range groups {
		r.MultiModel = r.MultiModel || g.Model != groups[0].Model
	}
	r.Findings = findings(groups)
	return r, nil
}

// Build reads the run files and builds their report.
func Build(paths []string) (*Report, error) {
	runs := make([]*Run, 0, len(paths))
	for _, p := range paths {
		run, err := Read(p)
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	return New(runs)
}

// Notes are one line per run file whose reading needs a caveat (damage, no
// end record): the command prints them on stderr.
func (r *Report) Notes() []string {
	var out []string
	for _, run := range r.Runs {
		if n := run.note(); n != "" {
			out = append(out, probes.SafeText(run.Path)+": "+n)
		}
	}
	return out
}

func (run *Run) note() string {
	var parts []string
	if len(run.Damage) > 0 {
		parts = append(parts, fmt.Sprintf("skipped %d damaged region(s), the first %s; everything else was read", len(run.Damage), run.Damage[0]))
	}
	if run.SecondRun > 0 {
		parts = append(parts, fmt.Sprintf("another run file begins at byte %d (two files concatenated?): only the first run was read", run.SecondRun))
	}
	if len(run.Unparsed) > 0 {
		parts = append(parts, "variant(s) "+strings.Join(run.Unparsed, ", ")+" unknown to this normtop: summarised without a warm-up window")
	}
	switch run.State {
	case record.Writing:
		parts = append(parts, "the run is still being written; this is what was there")
	case record.Unterminated:
		parts = append(parts, "no end record: the run was killed or crashed; everything complete before that was read")
	}
	return strings.Join(parts, "; ")
}

// status is the run's end status, or why there is none.
func (run *Run) status() string {
	if run.End != nil {
		return run.End.Status
	}
	if run.State == record.Writing {
		return "still running"
	}
	return "no end record"
}

func (run *Run) steps() int {
	s := 0
	for _, rep := range run.Reps {
		s = max(s, rep.Standing.Step)
	}
	return s
}

func (run *Run) describe() string {
	m := run.Meta
	met := m.MetricKind()
	metric := "no metric" // a stream that logs losses only (a PyTorch run without metric=)
	if met != "" {
		better := "lower is better"
		if met.HigherIsBetter() {
			better = "higher is better"
		}
		metric = fmt.Sprintf("metric %s (%s)", met.Name(), better)
	}
	data := m.Data
	if data == "" {
		data = probes.Missing
	}
	return fmt.Sprintf("run %s: %s on %s, %d variant(s), %d layer(s), %d steps, %s, %s",
		m.RunID, m.Model, data, len(m.Variants), len(m.Layers), run.steps(), metric, run.status())
}

// windowText is a window's last step over seeds: "1-N", or "1-N ± sd"
// when the seeds' windows differ.
func windowText(a probes.MeanSD) string {
	if a.N == 0 {
		return probes.Missing
	}
	s := fmt.Sprintf("1-%.0f", a.Mean)
	if a.SD > 0 {
		s += " ± " + fmtNum(a.SD)
	}
	return s
}

// warmupLines say which windows the summaries skipped.
func (r *Report) warmupLines() []string {
	out := []string{"Start-up window (docs/math.md §5, docs/findings.md): the distances to a layer's own running statistics, which start at μ = 0, σ² = ψ² = 1, are summarised after the longer of the first ⌈3/rate⌉ steps and the residual window, which ends at the first step t with (1−rate)^t·dist(1) below the distance's median over the second half of the run (per layer, statistic and seed, found on the plain distance; the relative distances take their statistic's window: the window column of the probe tables); shadow distances and every other probe are summarised from step 1."}
	seen := map[string]bool{}
	for _, g := range r.Groups {
		w := g.Warmup
		if w.Steps == 0 || seen[g.Spec] {
			continue
		}
		seen[g.Spec] = true
		names := make([]string, len(w.Probes))
		for i, p := range w.Probes {
			names[i] = p.String()
		}
		rate := "momentum m"
		if g.Name != "batchnorm" {
			rate = "1−α"
		}
		out = append(out, fmt.Sprintf("%s: %s skip at least steps 1-%d (%s = %s)", g.Spec, strings.Join(names, ", "), w.Steps, rate, fmtNum(w.Rate)))
	}
	out = append(out, r.headerWarmupLines(seen)...)
	if len(seen) == 0 {
		out = append(out, "No variant here keeps running statistics: nothing is skipped.")
	}
	return out
}

// headerWarmupLines: the windows of layers whose kind and rate the run
// header states (a PyTorch stream), one line per layer and rate.
func (r *Report) headerWarmupLines(seen map[string]bool) []string {
	var out []string
	for _, run := range r.Runs {
		m := run.Meta
		for _, name := range m.Layers {
			w, ok := m.LayerWarmup(0, name)
			if m.LayerKind(name) == "" || !ok || w.Steps == 0 {
				continue
			}
			key := fmt.Sprintf("layer %s %g", name, w.Rate)
			if seen[key] {
				continue
			}
			seen[key] = true
			names := make([]string, len(w.Probes))
			for i, p := range w.Probes {
				names[i] = p.String()
			}
			out = append(out, fmt.Sprintf("layer %s (%s, its own momentum %s, from the run header): %s skip at least steps 1-%d",
				name, m.LayerKind(name), fmtNum(w.Rate), strings.Join(names, ", "), w.Steps))
		}
	}
	return out
}

// section is one titled part of the report: lines of text, then tables.
type section struct {
	title  string
	lines  []string
	tables []table
}

type table struct {
	caption string
	head    []string
	right   []bool // right-align the column (numbers)
	rows    [][]string
}

func (r *Report) sections() []section {
	var out []section
	files := section{title: "Run files"}
	for _, run := range r.Runs {
		files.lines = append(files.lines, probes.SafeText(run.Path)+": "+run.describe())
		if n := run.note(); n != "" {
			files.lines = append(files.lines, "  note: "+n)
		}
	}
	files.lines = append(files.lines, r.warmupLines()...)
	out = append(out, files)
	out = append(out, r.variantSection(), r.spectrumSection(), r.theoremSection())
	out = append(out, r.probeSections()...)
	return out
}

func (r *Report) variantSection() section {
	s := section{title: "Variants",
		lines: []string{"Mean ± sd over seeds. train loss: the mean over the steps since the validation before the last (the train loss the gap is taken against, as the dashboard and the log print it). gap: last validation loss − smoothed train loss (probes.Eval.Gap). gap trend: least-squares slope of the gap over the second half of the validation evaluations, per 1,000 steps (> 0: widening). Diverged seeds are left out of the means."}}
	// One metric name in the header when every run has the same metric
	// (a cnn next to a transformer does not); each cell is formatted by
	// its own run's metric either way.
	name := "metric"
	if len(r.Groups) > 0 {
		name = r.Groups[0].Metric.Short()
		for _, g := range r.Groups {
			if g.Metric != r.Groups[0].Metric {
				name = "metric"
			}
		}
	}
	t := table{head: []string{"variant", "seeds", "diverged", "final val " + name, "best val " + name, "train loss", "val loss", "gap", "gap trend/1k"},
		right: []bool{false, false, true, true, true, true, true, true, true}}
	for _, g := range r.Groups {
		t.rows = append(t.rows, []string{g.Label(r.MultiModel), g.SeedList(), strconv.Itoa(g.Diverged),
			metricMS(g.Metric, g.FinalVal), metricMS(g.Metric, g.BestVal),
			fmtMS(g.FinalTrain, probes.FormatLoss), fmtMS(g.FinalValLoss, probes.FormatLoss), fmtMS(g.Gap, probes.FormatLoss), fmtMS(g.GapTrend, fmtNum)})
	}
	s.tables = []table{t}
	return s
}

func (r *Report) spectrumSection() section {
	s := section{title: "Embedding spectrum",
		lines: []string{"The last spectrum recorded per seed: effective rank exp(H(p)), p_i = σ_i/Σσ, and σ_k/σ_1 at k = d/4 and d/2 (d = the model width, d_model)."}}
	t := table{head: []string{"variant", "step", "d", "eff. rank", "σ_{d/4}/σ_1", "σ_{d/2}/σ_1"}, right: []bool{false, true, true, true, true, true}}
	for _, g := range r.Groups {
		if g.EffRank.N == 0 {
			continue
		}
		t.rows = append(t.rows, []string{g.Label(r.MultiModel), strconv.Itoa(g.SpectrumStep), strconv.Itoa(g.D),
			fmtMS(g.EffRank, fmtNum), fmtMS(g.SigmaQuarter, fmtNum), fmtMS(g.SigmaHalf, fmtNum)})
	}
	if len(t.rows) == 0 {
		s.lines = append(s.lines, "No spectrum recorded (only the transformer has an embedding matrix).")
		return s
	}
	s.tables = []table{t}
	return s
}

func (r *Report) theoremSection() section {
	s := section{title: "Theorem 1 (Xu et al.)",
		lines: []string{
			fmt.Sprintf("The probes average dx_mean, dx_var, dy_mean, dy_var over a batch's rows and record no per-row D. Measurable: mean(dx) = 0, which holds per row and so in the average (check: |dx_mean| ≤ %g·√dx_var at every measured step). Not measurable: mean(dx) = ḡ/D and the var(dx) relations, which need each row's D; dx_var/dy_var is shown (for detachnorm and detach-variance the var(g)-weighted mean of 1/D² over rows).", meanZeroTol),
		}}
	t := table{head: []string{"variant", "layer", "Theorem 1", "max |dx_mean|/√dx_var", "dx_var/dy_var", "check"}, right: []bool{false, false, false, true, true, false}}
	for _, g := range r.Groups {
		for l, c := range g.Theorem {
			if c.Claim == "" {
				continue
			}
			t.rows = append(t.rows, []string{g.Label(r.MultiModel), g.Layers[l], c.Claim, fmtMS(c.MeanRatio, fmtNum), fmtMS(c.VarRatio, fmtNum), c.Verdict})
		}
	}
	if len(t.rows) == 0 {
		s.lines = append(s.lines, "No variant of the LayerNorm family that Theorem 1 covers is in these runs.")
		return s
	}
	s.tables = []table{t}
	return s
}

func (r *Report) probeSections() []section {
	var out []section
	for _, g := range r.Groups {
		s := section{title: "Probes: " + g.Label(r.MultiModel) + " (seeds " + g.SeedList() + ")"}
		t := table{head: []string{"layer", "probe", "n", "window", "median", "p99/median", "max/median", "outliers/1k steps", "persistence", "trend"},
			right: []bool{false, false, true, true, true, true, true, true, true, true}}
		for l := range g.Probes {
			for p := probes.Probe(0); p < probes.NumProbes; p++ {
				pa := g.Probes[l][p]
				if pa.N == 0 {
					continue
				}
				window := probes.Missing
				if pa.Skipped > 0 {
					window = windowText(pa.Window)
				}
				t.rows = append(t.rows, []string{g.Layers[l], p.String(), strconv.Itoa(pa.N), window,
					fmtMS(pa.Median, fmtNum), fmtMS(pa.P99Med, fmtNum), fmtMS(pa.MaxMed, fmtNum), fmtMS(pa.OutliersPer1k, fmtNum),
					fmtMS(pa.Persistence, fmtNum), fmtMS(pa.Trend, fmtNum)})
			}
		}
		if len(t.rows) == 0 {
			s.lines = []string{"No probe values recorded."}
		} else {
			s.lines = []string{"Per layer and probe, mean ± sd over seeds of each seed's statistic; n counts the values summarised. window: the start-up window skipped (steps 1-N; the longer of ⌈3/m⌉ and the residual window, per seed). outliers: values over 10× the median of the previous 100 steps, per 1,000 steps after the window. persistence: outliers in the last quarter of the run / in the first quarter after the window. trend: median of the last quarter / median of the first quarter after the window."}
			s.tables = []table{t}
		}
		out = append(out, s)
	}
	return out
}
