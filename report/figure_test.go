package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/normtop/normtop/probes"
)

// reportOf builds the report of the paper fixture beside the cnn fixture
// and returns it with the transformer file's path.
func reportOf(t *testing.T) (*Report, string) {
	t.Helper()
	dir := t.TempDir()
	tf := paperFixture().write(t, dir, "tf.ntr")
	cnn := cnnFixture().write(t, dir, "cnn.ntr")
	r, err := Build([]string{tf, cnn})
	if err != nil {
		t.Fatal(err)
	}
	return r, tf
}

// variantsOf are the indices of the fixture's variants named name, in seed order.
func variantsOf(m probes.RunMeta, name string) []int {
	var out []int
	for v, vm := range m.Variants {
		if vm.Name == name {
			out = append(out, v)
		}
	}
	return out
}

// (ii)'s figure: the Transformer batchnorm column draws each seed's
// first-layer series exactly as recorded, each row on one log range, the
// dashed line at the start-up window the summaries skipped.
func TestFigureTailsMatchesRun(t *testing.T) {
	r, tf := reportOf(t)
	fig := r.FindingFigure(r.Findings[1])
	if fig.Cols != 2 || len(fig.Panels) != 8 {
		t.Fatalf("(ii): %d panels in %d columns, want 4 rows × 2", len(fig.Panels), fig.Cols)
	}
	bn := variantsOf(paperFixture().meta, "batchnorm")
	for row, p := range []probes.Probe{probes.RdistVar, probes.RdistMu, probes.GMu, probes.GVar} {
		panel := fig.Panels[2*row]
		want := recordedSeries(t, tf, p.String(), 0)
		if len(panel.Series) != len(bn) || !panel.LogY {
			t.Fatalf("%s: %d series (log %v), want one per seed on a log axis", p, len(panel.Series), panel.LogY)
		}
		for i, v := range bn {
			if !equalXY(panel.Series[i].Points, want[v]) {
				t.Errorf("%s seed %d: drawn %v, recorded %v", p, i+1, panel.Series[i].Points, want[v])
			}
		}
		if o := fig.Panels[2*row+1]; o.YMin != panel.YMin || o.YMax != panel.YMax || !(panel.YMax > panel.YMin) {
			t.Errorf("%s: the row's panels do not share one y range", p)
		}
		g := pickVariant(r.Groups, []string{"transformer"}, "batchnorm", layerScaled)
		if pa := g.Probes[0][p]; pa.Skipped > 0 && !slices.Equal(panel.VLines, []float64{pa.Window.Mean}) {
			t.Errorf("%s: window line %v, want %v", p, panel.VLines, pa.Window.Mean)
		}
	}
}

// (v)'s figure: each seed's train loss faint as recorded; the line is the
// mean over seeds of the centred moving mean (n/50 = 1 value here: the
// losses themselves); validation losses as the mean over seeds per step.
func TestFigureLossMatchesRun(t *testing.T) {
	r, tf := reportOf(t)
	fig := r.FindingFigure(r.Findings[4])
	if len(fig.Panels) != 2 {
		t.Fatalf("(v): %d panels", len(fig.Panels))
	}
	loss := fig.Panels[0]
	train := recordedSeries(t, tf, SeriesTrainLoss, 0)
	ln := variantsOf(paperFixture().meta, "layernorm")
	var faint, lines, bands, marks []Series
	for _, s := range loss.Series {
		switch s.Kind {
		case Faint:
			faint = append(faint, s)
		case Line:
			lines = append(lines, s)
		case Band:
			bands = append(bands, s)
		case Markers:
			marks = append(marks, s)
		}
	}
	if len(faint) != 9 || len(lines) != 3 || len(bands) != 3 || len(marks) != 3 {
		t.Fatalf("want 3 variants × (3 faint seeds, a band, a line, markers): %d %d %d %d", len(faint), len(lines), len(bands), len(marks))
	}
	for i, v := range ln {
		if !equalXY(faint[i].Points, train[v]) {
			t.Errorf("layernorm seed %d: faint series is not the recorded train loss", i+1)
		}
	}
	for k, pt := range lines[0].Points {
		var sum float64
		for _, v := range ln {
			sum += train[v][k].Y
		}
		if pt.X != train[ln[0]][k].X || math.Abs(pt.Y-sum/3) > 1e-9 {
			t.Fatalf("layernorm mean at %v: %v, want %v", pt.X, pt.Y, sum/3)
		}
	}
	// The fixture's val loss at step s is base + gap + 0.01·seed.
	for _, pt := range marks[0].Points {
		if want := 2.0 + 0.30 + 0.02; math.Abs(pt.Y-want) > 1e-9 || int(pt.X)%20 != 0 {
			t.Errorf("layernorm val marker %v, want %v at a multiple of 20", pt, want)
		}
	}
	for _, pt := range fig.Panels[1].Series[0].Points {
		if want := 0.30 + 0.02; math.Abs(pt.Y-want) > 1e-9 {
			t.Errorf("layernorm gap marker %v, want %v", pt, want)
		}
	}
}

// (iv)'s figure: the mean over seeds of each seed's last spectrum.
func TestFigureSpectrumMatchesRun(t *testing.T) {
	r, _ := reportOf(t)
	fig := r.FindingFigure(r.Findings[3])
	if len(fig.Panels) != 1 {
		t.Fatalf("(iv): %v", fig.Empty)
	}
	var line *Series
	for i, s := range fig.Panels[0].Series {
		if s.Kind == Line && line == nil {
			line = &fig.Panels[0].Series[i]
		}
	}
	// The first line is pn-v's; its seeds' last spectra are exp(−i/(3+0.2·seed)).
	for i, pt := range line.Points {
		var sum float64
		for seed := 1.0; seed <= 3; seed++ {
			sum += math.Exp(-float64(i) / (3 + 0.2*seed))
		}
		if pt.X != float64(i+1) || math.Abs(pt.Y-sum/3) > 1e-12 {
			t.Errorf("σ_%d/σ_1: %v, want %v", i+1, pt.Y, sum/3)
		}
	}
	if !slices.Equal(fig.Panels[0].VLines, []float64{2, 4, 6}) {
		t.Errorf("k lines %v, want d/4, d/2, 3d/4 of d = 8", fig.Panels[0].VLines)
	}
}

// A finding with nothing to draw says why, and still has a figure entry.
func TestFigureEmpty(t *testing.T) {
	path := cnnFixture().write(t, t.TempDir(), "cnn.ntr")
	r, err := Build([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		fig := r.FindingFigure(f)
		if fig == nil || (len(fig.Panels) == 0) == (fig.Empty == "") {
			t.Errorf("(%s): panels %d, empty %q", f.ID, len(fig.Panels), fig.Empty)
		}
	}
}

// thin keeps short series whole; on long ones it keeps only recorded
// points, in order, at most 4 per bucket, and every bucket's extremes.
func TestThin(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 40, 41, 1000, 12345} {
		ys := make([]float64, n)
		for i := range ys {
			ys[i] = rng.NormFloat64()
			if rng.IntN(500) == 0 {
				ys[i] *= 100 // a spike
			}
		}
		at := func(i int) XY { return XY{float64(2*i + 1), ys[i]} }
		const buckets = 10
		got := thin(n, buckets, at)
		if n <= 4*buckets {
			if len(got) != n {
				t.Errorf("n=%d: %d points, want all", n, len(got))
			}
			continue
		}
		if len(got) > 4*buckets {
			t.Errorf("n=%d: %d points", n, len(got))
		}
		for i, p := range got {
			k := int(p.X-1) / 2
			if ys[k] != p.Y || (i > 0 && p.X <= got[i-1].X) {
				t.Fatalf("n=%d: point %v is not recorded or out of order", n, p)
			}
		}
		for b := 0; b < buckets; b++ {
			lo, hi := b*n/buckets, (b+1)*n/buckets
			mn, mx := slices.Min(ys[lo:hi]), slices.Max(ys[lo:hi])
			if !slices.ContainsFunc(got, func(p XY) bool { return p.Y == mn }) || !slices.ContainsFunc(got, func(p XY) bool { return p.Y == mx }) {
				t.Errorf("n=%d bucket %d: extremes lost", n, b)
			}
		}
	}
}

// smoothed is the centred moving mean, checked against the sum by hand.
func TestSmoothed(t *testing.T) {
	ys := []float64{1, 2, 3, 4, 10, 6, 7}
	got := smoothed(len(ys), 3, 100, func(i int) int { return i + 1 }, func(i int) float64 { return ys[i] })
	want := []float64{2, 2, 3, 17.0 / 3, 20.0 / 3, 23.0 / 3, 23.0 / 3}
	for i, p := range got {
		if p.X != float64(i+1) || math.Abs(p.Y-want[i]) > 1e-12 {
			t.Errorf("%d: %v, want %v", i, p, want[i])
		}
	}
}

// band: mean ± sample sd over curves, another curve interpolated at the
// first's x.
func TestBand(t *testing.T) {
	a := []XY{{0, 1}, {2, 3}, {4, 5}}
	b := []XY{{0, 3}, {4, 7}} // 5 at x = 2
	mean, lo, hi := band([][]XY{a, b})
	for i, want := range []float64{2, 4, 6} {
		sd := math.Sqrt2
		if mean[i].Y != want || math.Abs(hi[i]-want-sd) > 1e-12 || math.Abs(want-lo[i]-sd) > 1e-12 {
			t.Errorf("%d: %v %v %v", i, mean[i], lo[i], hi[i])
		}
	}
}

// logSafe drops what a log axis cannot show and counts the values.
func TestLogSafe(t *testing.T) {
	p := Panel{LogY: true, Series: []Series{
		{Kind: Line, Points: []XY{{1, 1}, {2, 0}, {3, -1}, {4, 2}}},
		{Kind: Band, Points: []XY{{1, 1}, {2, 1}}, Lo: []float64{0.5, -1}, Hi: []float64{2, 3}},
	}}
	p.logSafe()
	if !equalXY(p.Series[0].Points, []XY{{1, 1}, {4, 2}}) || len(p.Series[1].Points) != 1 || p.Series[1].Lo[0] != 0.5 {
		t.Errorf("kept %v and %v %v", p.Series[0].Points, p.Series[1].Points, p.Series[1].Lo)
	}
	if p.Note != "2 value(s) ≤ 0 not shown on the log axis" {
		t.Errorf("note %q", p.Note)
	}
}

// A file read in parts keeps the same curves as one read whole (the train
// steps are joined in step order like the values).
func TestCurvesInParts(t *testing.T) {
	old := minPartSteps
	minPartSteps = 7
	defer func() { minPartSteps = old }()
	path := paperFixture().write(t, t.TempDir(), "tf.ntr")
	whole, err := readParts(path, 1)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := readParts(path, 4)
	if err != nil {
		t.Fatal(err)
	}
	for v := range whole.Reps {
		a, b := whole.Reps[v].Curves, parts.Reps[v].Curves
		if !equalXY(a.Train, b.Train) || !equalXY(a.TrainSmooth, b.TrainSmooth) || !slices.Equal(a.Val, b.Val) {
			t.Errorf("variant %d: losses differ read in parts", v)
		}
		for p := range a.First {
			if !equalXY(a.First[p], b.First[p]) {
				t.Errorf("variant %d %s: differs read in parts", v, probes.Probe(p))
			}
		}
	}
}
