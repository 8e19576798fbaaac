package report

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/normtop/normtop/probes"
)

// A batchnorm run whose dist_var is 100 during the warm-up window (steps
// 1-60 at momentum 0.05) and 1, 2, …, 20 after it; g_var (no window) is 1 at
// every step. Hand-worked, after the window: median 10.5; p99 at rank
// h = 19·0.99 = 18.81 → 19 + 0.81 = 19.81; max 20; trend: quarters of 5,
// median(16..20)/median(1..5) = 18/3 = 6; one outlier alert after the window
// (the one at step 30 is inside it) over 20 steps → 50 per 1,000 steps.
func TestReadHandWorked(t *testing.T) {
	m := meta("transformer", "bpc", []string{"l0"}, []int64{1}, "batchnorm", "layernorm")
	fx := fixture{meta: m, steps: 80, fill: func(f *probes.Frame, _ *rand.Rand) {
		lv := &f.Layers[0]
		f.TrainLoss = float64(f.Step)
		if f.Step <= 60 {
			lv[probes.DistVar] = 100
		} else {
			lv[probes.DistVar] = float64(f.Step - 60)
		}
		lv[probes.GVar] = 1
		if f.Step == 30 || f.Step == 70 {
			f.Alerts = []probes.Alert{{Kind: probes.AlertOutlier, Step: f.Step, Layer: 0, Probe: probes.DistVar}}
		}
		if f.Step%40 == 0 {
			// TrainLoss: the mean of the steps since the previous
			// evaluation, as the Collector fills it (1..40: 20.5; 41..80: 60.5).
			f.Eval = []probes.Eval{{Split: "val", Loss: 3 - float64(f.Step)/100, Metric: 5 - float64(f.Step)/40, TrainLoss: float64(f.Step) - 19.5}}
		}
	}}
	run, err := Read(fx.write(t, t.TempDir(), "h.ntr"))
	if err != nil {
		t.Fatal(err)
	}
	bn := run.Reps[0]
	if bn.Warmup.Steps != 60 {
		t.Fatalf("batchnorm window %d, want 60", bn.Warmup.Steps)
	}
	dv := bn.Layers[0].Probes[probes.DistVar]
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	if dv.N != 20 || dv.Skipped != 60 {
		t.Errorf("dist_var: %d values, %d skipped; want 20 and 60", dv.N, dv.Skipped)
	}
	near("median", dv.Median, 10.5)
	near("p99", dv.P99, 19.81)
	near("max", dv.Max, 20)
	near("p99/median", dv.P99Med(), 19.81/10.5)
	// The residual window (dist(1) = 100, second-half median 60: t = 10)
	// is shorter than the ⌈3/m⌉ = 60 warm-up, which wins. With the window
	// at 60 of 80 steps the first quarter after it, (60, 80], is the last
	// quarter: trend 1.
	if dv.Window != 60 {
		t.Errorf("window %d, want 60", dv.Window)
	}
	near("trend", dv.Trend, 1)
	// 1, 2, …, 20: no value is 10× the median of the ones before it. The
	// recorded live alerts (steps 30, 70) are not what the report counts.
	near("outliers/1k", dv.OutliersPer1k, 0)
	gv := bn.Layers[0].Probes[probes.GVar]
	if gv.N != 80 || gv.Skipped != 0 || gv.Median != 1 || gv.OutliersPer1k != 0 {
		t.Errorf("g_var has no window: %+v", gv)
	}
	// layernorm has no running statistics: its (shadow) dist_var keeps all 80.
	if ln := run.Reps[1].Layers[0].Probes[probes.DistVar]; ln.N != 80 || ln.Skipped != 0 {
		t.Errorf("layernorm dist_var: %+v", ln)
	}
	// Train loss 1..80: the train loss printed is the mean of 41..80, the
	// steps the last evaluation's gap used (60.5); finding (vii-b)'s tail is
	// the last tenth, 73..80, mean 76.5. Val at 40 and 80: metric 4 then 3
	// (bpc, lower is better: best 3), gap = loss − train.
	near("final train", bn.FinalTrain, 60.5)
	near("train tail", bn.TrainTail, 76.5)
	near("final val", bn.FinalVal, 3)
	near("best val", bn.BestVal, 3)
	near("gap", bn.Gap, 3-0.8-60.5)
	// Second half of the two val evaluations is the last one: no slope.
	if !math.IsNaN(bn.GapTrend) {
		t.Errorf("gap trend from one evaluation: %v", bn.GapTrend)
	}
	if bn.Seed != 1 || bn.Standing.Status != probes.Done || bn.Standing.Step != 80 {
		t.Errorf("replicate: seed %d, %+v", bn.Seed, bn.Standing)
	}
}

// Seeds across files: two files of one seed each group into one variant
// with mean ± sd over both; the older files' seed comes from the header's
// "seed" when VariantMeta.Seed is 0.
func TestGroupAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, seed := range []string{"4", "6"} {
		m := meta("transformer", "bpc", []string{"l0"}, []int64{0}, "layernorm")
		m.Config["seed"] = seed
		loss := map[string]float64{"4": 2, "6": 4}[seed]
		fx := fixture{meta: m, steps: 10, fill: func(f *probes.Frame, _ *rand.Rand) {
			f.TrainLoss = loss
			f.Layers[0][probes.GVar] = loss
		}}
		paths = append(paths, fx.write(t, dir, "s"+seed+".ntr"))
	}
	r, err := Build(paths)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Groups) != 1 {
		t.Fatalf("%d groups, want 1", len(r.Groups))
	}
	g := r.Groups[0]
	// 2 and 4: mean 3, sd √2.
	if g.SeedList() != "4,6" || g.FinalTrain.Mean != 3 || math.Abs(g.FinalTrain.SD-math.Sqrt2) > 1e-12 || g.FinalTrain.N != 2 {
		t.Errorf("seeds %s, train loss %+v", g.SeedList(), g.FinalTrain)
	}
	if pa := g.Probes[0][probes.GVar]; pa.N != 20 || pa.Median.Mean != 3 {
		t.Errorf("g_var over seeds: %+v", pa)
	}
	// The same file twice holds every seed twice.
	if _, err := Build([]string{paths[0], paths[0]}); err == nil {
		t.Error("a seed given twice must be refused")
	}
}

// A diverged seed is counted and left out of the means.
func TestDivergedSeedLeftOut(t *testing.T) {
	m := meta("transformer", "bpc", []string{"l0"}, []int64{1, 2}, "layernorm")
	fx := fixture{meta: m, steps: 10, status: map[int]probes.Status{1: probes.Diverged}, fill: func(f *probes.Frame, _ *rand.Rand) {
		f.TrainLoss = 1 + float64(f.Variant)
		if f.Step == 10 {
			f.Eval = []probes.Eval{{Split: "val", Loss: 2, Metric: 3, TrainLoss: 1}}
		}
	}}
	r, err := Build([]string{fx.write(t, t.TempDir(), "d.ntr")})
	if err != nil {
		t.Fatal(err)
	}
	g := r.Groups[0]
	if g.Diverged != 1 || g.FinalTrain.N != 1 || g.FinalTrain.Mean != 1 || g.FinalTrain.Missing != 1 {
		t.Errorf("diverged %d, train loss %+v", g.Diverged, g.FinalTrain)
	}
}

// A --seeds run may include seed 0: the header's config seed is used only
// when no variant names its seed (an older file).
func TestSeedZeroInASeedsRun(t *testing.T) {
	m := meta("transformer", "bpc", []string{"l0"}, []int64{0, 1, 2}, "layernorm")
	m.Config["seed"] = "1"
	fx := fixture{meta: m, steps: 3, fill: func(f *probes.Frame, _ *rand.Rand) { f.TrainLoss = 1 }}
	r, err := Build([]string{fx.write(t, t.TempDir(), "s.ntr")})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Groups[0].SeedList(); got != "0,1,2" {
		t.Errorf("seeds %s, want 0,1,2", got)
	}
}
