package report

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/normtop/normtop/probes"
	"github.com/normtop/normtop/record"
)

// allProbesFixture records every probe in both layers (signed probes take
// both signs), two variants × two seeds, evaluations and spectra.
func allProbesFixture() fixture {
	m := meta("transformer", "bpc", []string{"block0.ln", "final"}, []int64{1, 2}, "layernorm", "pn-v")
	return fixture{meta: m, steps: 60, fill: func(f *probes.Frame, rng *rand.Rand) {
		f.TrainLoss = 3 / math.Sqrt(float64(f.Step)) * (1 + 0.1*rng.NormFloat64())
		for l := range f.Layers {
			for p := probes.Probe(0); p < probes.NumProbes; p++ {
				v := math.Exp(rng.NormFloat64()) * float64(l+1)
				if !p.Magnitude() {
					v *= rng.NormFloat64()
				}
				f.Layers[l][p] = v
			}
		}
		if f.Step%15 == 0 {
			f.Eval = []probes.Eval{{Split: "val", Loss: f.TrainLoss + 0.2, Metric: (f.TrainLoss + 0.2) / math.Ln2, TrainLoss: f.TrainLoss}}
		}
		if f.Step%30 == 0 {
			s := &probes.Spectrum{Step: f.Step, EffRank: 5}
			for k := 0; k < 8; k++ {
				s.Sigma = append(s.Sigma, math.Exp(-float64(k)/(2+rng.Float64())))
			}
			f.Spectrum = s
		}
	}}
}

// recordedSeries reads a run file's series as plot must draw it: per
// variant, (step, value as stored in float32) of the requested quantity.
func recordedSeries(t *testing.T, path, series string, layer int) map[int][]XY {
	t.Helper()
	r, err := record.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := map[int][]XY{}
	p, isProbe := probes.ProbeByName(series)
	for {
		f, err := r.Next()
		if err != nil {
			break
		}
		v := math.NaN()
		switch {
		case isProbe:
			v = f.Layers[layer][p]
		case series == SeriesTrainLoss:
			v = f.TrainLoss
		}
		if !math.IsNaN(v) {
			out[f.Variant] = append(out[f.Variant], XY{float64(f.Step), float64(float32(v))})
		}
	}
	return out
}

// plot on every series name: the figure's lines are the recorded values
// of each variant and seed, in step order; evaluations and the spectrum
// come out as markers and a mean line; each draws as SVG.
func TestPlotEverySeries(t *testing.T) {
	dir := t.TempDir()
	path := allProbesFixture().write(t, dir, "all.ntr")
	for _, name := range PlotSeriesNames() {
		for _, layer := range []string{"", "final"} {
			fig, err := PlotFigure([]string{path}, PlotRequest{Series: name, Layer: layer})
			if err != nil {
				t.Fatalf("%s %q: %v", name, layer, err)
			}
			if len(fig.Panels) != 1 {
				t.Fatalf("%s: %d panels", name, len(fig.Panels))
			}
			ss := fig.Panels[0].Series
			switch name {
			case SeriesValLoss, SeriesValMetric:
				if len(ss) != 2 || ss[0].Kind != Markers || len(ss[0].Points) != 4 || ss[0].Lo == nil {
					t.Errorf("%s: want one marker series per variant, 4 evaluations, seed bars: %+v", name, ss)
				}
			case SeriesSpectrum:
				if len(ss) != 4 || ss[0].Kind != Band || ss[1].Kind != Line || len(ss[1].Points) != 8 {
					t.Errorf("%s: want band and mean per variant over 8 k: %+v", name, ss)
				}
			default:
				l := 0
				if layer == "final" {
					l = 1
				}
				want := recordedSeries(t, path, name, l)
				if len(ss) != 4 {
					t.Fatalf("%s: %d series, want a line per variant and seed", name, len(ss))
				}
				for v := 0; v < 4; v++ {
					if ss[v].Kind != Line || !equalXY(ss[v].Points, want[v]) {
						t.Errorf("%s layer %q variant %d: the drawn series differs from the recorded one", name, layer, v)
					}
				}
				if ss[0].Label == "" || ss[1].Label != "" || ss[0].Color == ss[2].Color {
					t.Errorf("%s: legend on a variant's first seed, one colour per variant: %q %q %d %d", name, ss[0].Label, ss[1].Label, ss[0].Color, ss[2].Color)
				}
			}
			var b bytes.Buffer
			if err := fig.Write(&b, "svg", 0, 0); err != nil || !strings.Contains(b.String(), "</svg>") {
				t.Errorf("%s: svg: %v", name, err)
			}
		}
	}
}

func equalXY(a, b []XY) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// PNG and PDF are written too (their magic numbers).
func TestPlotFormats(t *testing.T) {
	path := allProbesFixture().write(t, t.TempDir(), "all.ntr")
	fig, err := PlotFigure([]string{path}, PlotRequest{Series: "g_var", LogY: true, Smooth: 5})
	if err != nil {
		t.Fatal(err)
	}
	for format, magic := range map[string]string{"png": "\x89PNG", "pdf": "%PDF", "svg": "<?xml"} {
		var b bytes.Buffer
		if err := fig.Write(&b, format, 0, 0); err != nil || !strings.HasPrefix(b.String(), magic) {
			t.Errorf("%s: %v, starts %.8q", format, err, b.String())
		}
	}
	var b bytes.Buffer
	if err := fig.Write(&b, "jpg", 0, 0); err == nil {
		t.Error("jpg written")
	}
}

// Smoothing: each seed faint, the mean of the seeds' centred moving means
// as the line, ± sd as a band.
func TestPlotSmooth(t *testing.T) {
	path := allProbesFixture().write(t, t.TempDir(), "all.ntr")
	fig, err := PlotFigure([]string{path}, PlotRequest{Series: SeriesTrainLoss, Smooth: 5, Variants: []string{"pn-v"}})
	if err != nil {
		t.Fatal(err)
	}
	ss := fig.Panels[0].Series
	if len(ss) != 4 || ss[0].Kind != Faint || ss[1].Kind != Faint || ss[2].Kind != Band || ss[3].Kind != Line {
		t.Fatalf("want faint, faint, band, line: %+v", ss)
	}
	want := recordedSeries(t, path, SeriesTrainLoss, 0)
	// pn-v seeds are variants 2 and 3; the mean at step 10 of the two
	// centred means over steps 8..12.
	var sum float64
	for _, v := range []int{2, 3} {
		for _, p := range want[v][7:12] {
			sum += p.Y
		}
	}
	if got := ss[3].Points[9]; got.X != 10 || math.Abs(got.Y-sum/10) > 1e-12 {
		t.Errorf("smoothed mean at step 10: %v, want %v", got, sum/10)
	}
}

// Bad requests: one message naming the valid choices, a *BadRequest.
func TestPlotBadRequests(t *testing.T) {
	dir := t.TempDir()
	path := allProbesFixture().write(t, dir, "all.ntr")
	cnn := cnnFixture().write(t, dir, "cnn.ntr")
	mlp := allProbesFixture()
	mlp.meta.Model = "mlp"
	mlpPath := mlp.write(t, dir, "mlp.ntr")
	for _, tc := range []struct {
		paths []string
		req   PlotRequest
		want  []string
	}{
		{[]string{path}, PlotRequest{Series: "rdist"}, []string{`"rdist"`, "rdist_var", "train_loss"}},
		{[]string{path}, PlotRequest{Series: "g_var", Layer: "block9"}, []string{`"block9"`, "block0.ln, final"}},
		{[]string{path}, PlotRequest{Series: "g_var", Variants: []string{"batchnorm"}}, []string{`"batchnorm"`, "layernorm, pn-v"}},
		{[]string{path, mlpPath}, PlotRequest{Series: "g_var"}, []string{"transformer", "mlp"}},
		{[]string{path, cnn}, PlotRequest{Series: SeriesValMetric}, []string{"bpc", "accuracy"}},
		{[]string{cnn}, PlotRequest{Series: "g_psi2"}, []string{"no values", "recorded there: ", "rdist_var"}},
		{[]string{cnn}, PlotRequest{Series: SeriesSpectrum}, []string{"spectrum", "none recorded"}},
	} {
		_, err := PlotFigure(tc.paths, tc.req)
		var bad *BadRequest
		if !errors.As(err, &bad) {
			t.Errorf("%+v: %v, want a BadRequest", tc.req, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %q lacks %q", tc.req, err, w)
			}
		}
	}
}
