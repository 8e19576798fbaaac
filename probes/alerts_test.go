package probes

import (
	"github.com/normtop/normtop/normspec"
	"math"
	"strings"
	"testing"
)

// scalarTaps returns Params-only taps with the given gamma_drift, so a test
// can drive one watched probe.
func scalarTaps(drift float64) *normspec.Taps {
	t := fullTaps(nil, nil, nil, nil, nil, nil)
	t.Mask = normspec.TapParams
	t.GammaDrift, t.BetaNorm = drift, nan
	return t
}

func alertsOf(fs []Frame, k AlertKind) []Alert {
	var out []Alert
	for _, f := range fs {
		for _, a := range f.Alerts {
			if a.Kind == k {
				out = append(out, a)
			}
		}
	}
	return out
}

func TestOutlierAlert(t *testing.T) {
	cases := []struct {
		name   string
		series []float64
		want   []int // steps at which an outlier alert fires
	}{
		{"warm-up: no alert before the window is full", append(repeat(1, OutlierWindow-1), 100), nil},
		{"spike after warm-up", append(repeat(1, OutlierWindow), 10.5), []int{OutlierWindow + 1}},
		{"exactly 10× is not over", append(repeat(1, OutlierWindow), 10), nil},
		{"one alert per episode", append(repeat(1, OutlierWindow), 11, 12, 13, 14), []int{OutlierWindow + 1}},
		{"re-arms after a quiet spell", concat(repeat(1, OutlierWindow), []float64{11}, repeat(1, alertRearmQuiet), []float64{11}),
			[]int{OutlierWindow + 1, OutlierWindow + alertRearmQuiet + 2}},
		{"flapping inside an episode does not re-fire", concat(repeat(1, OutlierWindow), []float64{11, 1, 11, 1, 11}), []int{OutlierWindow + 1}},
		{"zero median never alerts", append(repeat(0, OutlierWindow), 5), nil},
		{"slow growth is not an outlier", ramp(1, 200), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(0, []string{"block1.ln2"}, DefaultIntervals())
			var fs []Frame
			for i, x := range tc.series {
				fs = append(fs, c.measure(i+1, 0, 1, []*normspec.Taps{scalarTaps(x)}))
			}
			got := alertsOf(fs, AlertOutlier)
			if len(got) != len(tc.want) {
				t.Fatalf("alerts = %+v, want at steps %v", got, tc.want)
			}
			for i, a := range got {
				if a.Step != tc.want[i] || a.Layer != 0 || a.Probe != GammaDrift || a.Threshold != 10 {
					t.Errorf("alert %d = %+v, want step %d layer 0 gamma_drift threshold 10", i, a, tc.want[i])
				}
				if !strings.Contains(a.Msg, "block1.ln2 gamma_drift") {
					t.Errorf("msg %q does not name the layer and probe", a.Msg)
				}
			}
		})
	}
}

func repeat(v float64, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func ramp(from float64, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = from + float64(i)
	}
	return s
}

func concat(parts ...[]float64) []float64 {
	var s []float64
	for _, p := range parts {
		s = append(s, p...)
	}
	return s
}

func TestNuGrowthAndAdaNormAlerts(t *testing.T) {
	cases := []struct {
		name    string
		opts    []Option
		gamma   float64
		ada     float64
		kind    AlertKind
		fires   bool
		thresh  float64
		layer   int
		nLayers int
	}{
		{"Γ over 2/(1-0.9)", nil, 20.5, nan, AlertNuGrowth, true, 20, 0, 1},
		{"Γ at the limit", nil, 20, nan, AlertNuGrowth, false, 0, 0, 1},
		{"α_b option raises the limit", []Option{WithAlphaBwd(0.95)}, 20.5, nan, AlertNuGrowth, false, 0, 0, 1},
		{"per-layer α_b", []Option{WithLayerAlphaBwd(1, 0.8)}, 10.5, nan, AlertNuGrowth, true, 10, 1, 2},
		{"adanorm φ ≤ 0 over 1%", nil, nan, 0.011, AlertAdaNegPhi, true, 0.01, 0, 1},
		{"adanorm φ ≤ 0 under 1%", nil, nan, 0.009, AlertAdaNegPhi, false, 0, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			names := []string{"l0", "l1"}[:tc.nLayers]
			c := NewCollector(0, names, DefaultIntervals(), tc.opts...)
			var fs []Frame
			for step := 1; step <= 5; step++ { // steady: one alert per episode
				taps := make([]*normspec.Taps, tc.nLayers)
				for i := range taps {
					taps[i] = fullTaps(nil, nil, nil, nil, nil, nil)
					taps[i].Mask = normspec.TapStats
					taps[i].PNGamma, taps[i].AdaFrac = 1, 0
				}
				taps[tc.layer].PNGamma, taps[tc.layer].AdaFrac = tc.gamma, tc.ada
				fs = append(fs, c.measure(step, 0, 1, taps))
			}
			got := alertsOf(fs, tc.kind)
			if !tc.fires {
				if len(got) != 0 {
					t.Fatalf("alerts = %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Step != 1 || got[0].Layer != tc.layer || !sameFloat(got[0].Threshold, tc.thresh) {
				t.Fatalf("alerts = %+v, want one at step 1, layer %d, threshold %v", got, tc.layer, tc.thresh)
			}
		})
	}
}

func TestDivergenceAlert(t *testing.T) {
	cases := []struct {
		name      string
		badStep   int
		loss      float64
		nonFinite bool
		infProbe  bool
		wantLayer int
		wantWhat  string
	}{
		{"NaN loss", 5, nan, false, false, -1, "train loss"},
		{"Inf loss", 3, math.Inf(1), false, false, -1, "train loss"},
		{"layer saw NaN", 4, 1, true, false, 0, "l0 input, gradient or statistics"},
		{"probe is Inf", 6, 1, false, true, 0, "l0 gamma_drift"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(0, []string{"l0"}, DefaultIntervals())
			var fs []Frame
			for step := 1; step <= tc.badStep+2; step++ {
				tp, loss := scalarTaps(0.5), 1.0
				if step >= tc.badStep {
					loss = tc.loss
					tp.NonFinite = tc.nonFinite
					if tc.infProbe {
						tp.GammaDrift = math.Inf(1)
					}
				}
				fs = append(fs, c.measure(step, 0, loss, []*normspec.Taps{tp}))
			}
			got := alertsOf(fs, AlertDivergence)
			if len(got) != 1 {
				t.Fatalf("divergence alerts = %+v, want exactly one", got)
			}
			a := got[0]
			if a.Step != tc.badStep || a.Layer != tc.wantLayer || !strings.Contains(a.Msg, tc.wantWhat) ||
				!strings.Contains(a.Msg, "last good "+itoa(tc.badStep-1)) {
				t.Errorf("alert = %+v, want step %d layer %d naming %q and the last good step", a, tc.badStep, tc.wantLayer, tc.wantWhat)
			}
			// The guard then stops the variant: no second alert, message replaced.
			c.diverge(&fs[tc.badStep-1], "loss is NaN")
			f := fs[tc.badStep-1]
			if f.Status != Diverged || len(alertsOf([]Frame{f}, AlertDivergence)) != 1 ||
				!strings.Contains(f.Alerts[len(f.Alerts)-1].Msg, "diverged at step "+itoa(tc.badStep)+" (last good "+itoa(tc.badStep-1)+"): loss is NaN") {
				t.Errorf("after Diverge: %+v", f)
			}
		})
	}
}

func TestDivergeWithoutPriorAlert(t *testing.T) {
	c := NewCollector(0, []string{"l0"}, DefaultIntervals())
	for step := 1; step <= 9; step++ {
		c.measure(step, 0, 1, nil)
	}
	f := c.measure(10, 0, 1e9, nil)
	c.diverge(&f, "loss above 1e6")
	if f.Status != Diverged || len(f.Alerts) != 1 || f.Alerts[0].Kind != AlertDivergence ||
		f.Alerts[0].Msg != "diverged at step 10 (last good 9): loss above 1e6" {
		t.Fatalf("frame = %+v", f)
	}
}

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func TestOverfitAlertAndGap(t *testing.T) {
	// Each row: train losses since the previous eval, then the val loss.
	type round struct {
		train []float64
		val   float64
	}
	cases := []struct {
		name   string
		rounds []round
		fireAt []int // eval indices (0-based) with an overfit alert
	}{
		{"three rises while train falls", []round{
			{[]float64{3, 2}, 2.0}, {[]float64{1.5}, 2.1}, {[]float64{1.2}, 2.2}, {[]float64{1.0}, 2.3}, {[]float64{0.9}, 2.4}},
			[]int{3}},
		{"two rises are not enough", []round{
			{[]float64{3}, 2.0}, {[]float64{2}, 2.1}, {[]float64{1}, 2.2}, {[]float64{0.5}, 2.0}, {[]float64{0.4}, 2.1}},
			nil},
		{"val rising with train rising is not over-fitting", []round{
			{[]float64{1}, 2.0}, {[]float64{2}, 2.1}, {[]float64{3}, 2.2}, {[]float64{4}, 2.3}},
			nil},
		{"a new episode after the streak breaks", []round{
			{[]float64{9}, 2.0}, {[]float64{8}, 2.1}, {[]float64{7}, 2.2}, {[]float64{6}, 2.3}, {[]float64{5}, 2.0},
			{[]float64{4}, 2.1}, {[]float64{3}, 2.2}, {[]float64{2}, 2.3}},
			[]int{3, 7}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(0, nil, DefaultIntervals())
			step := 0
			var fired []int
			for i, r := range tc.rounds {
				var f Frame
				for _, l := range r.train {
					step++
					f = c.measure(step, 0, l, nil)
				}
				c.addEval(&f, Eval{Split: "val", Loss: r.val})
				mean := 0.0
				for _, l := range r.train {
					mean += l
				}
				mean /= float64(len(r.train))
				e := f.Eval[len(f.Eval)-1]
				if !sameFloat(e.TrainLoss, mean) || !sameFloat(e.Gap(), r.val-mean) {
					t.Fatalf("eval %d: TrainLoss %v Gap %v, want %v and %v", i, e.TrainLoss, e.Gap(), mean, r.val-mean)
				}
				if len(alertsOf([]Frame{f}, AlertOverfit)) > 0 {
					fired = append(fired, i)
				}
			}
			if len(fired) != len(tc.fireAt) {
				t.Fatalf("overfit alerts at evals %v, want %v", fired, tc.fireAt)
			}
			for i := range fired {
				if fired[i] != tc.fireAt[i] {
					t.Fatalf("overfit alerts at evals %v, want %v", fired, tc.fireAt)
				}
			}
		})
	}
}

func TestEvalTrainLossEdges(t *testing.T) {
	c := NewCollector(0, nil, DefaultIntervals())
	var f Frame
	c.addEval(&f, Eval{Split: "val", Loss: 2})
	if !math.IsNaN(f.Eval[0].TrainLoss) || !math.IsNaN(f.Eval[0].Gap()) {
		t.Errorf("no train step yet: TrainLoss %v, want NaN", f.Eval[0].TrainLoss)
	}
	f = c.measure(1, 0, 4, nil)
	f = c.measure(2, 0, nan, nil) // non-finite losses are left out of the average
	f = c.measure(3, 0, 2, nil)
	c.addEval(&f, Eval{Split: "val", Loss: 5})
	c.addEval(&f, Eval{Split: "test", Loss: 6}) // no step since: the val eval's average
	if f.Eval[0].TrainLoss != 3 || f.Eval[1].TrainLoss != 3 || f.Eval[1].Gap() != 3 {
		t.Errorf("evals = %+v", f.Eval)
	}
}

// TestAlerterMatchesCollector: the Alerter, fed the values of a Collector's
// frames, raises exactly the Collector's layer alerts (what a stream's
// reader derives equals what normtop's trainer would have said).
func TestAlerterMatchesCollector(t *testing.T) {
	cases := []struct {
		name   string
		series []float64
	}{
		{"spike after warm-up", append(repeat(1, OutlierWindow), 10.5)},
		{"episodes and re-arming", concat(repeat(1, OutlierWindow), []float64{11}, repeat(1, alertRearmQuiet), []float64{11, 12, 1, 30})},
		{"slow growth", ramp(1, 100)},
		{"zeros", append(repeat(0, OutlierWindow), 5)},
	}
	layers := []string{"block0.ln", "block1.ln"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(0, layers, DefaultIntervals())
			a := NewAlerter(layers)
			for i, x := range tc.series {
				f := c.measure(i+1, 0, 1, []*normspec.Taps{scalarTaps(1), scalarTaps(x)})
				want := f.Alerts
				f.Alerts = nil
				got := a.Alerts(nil, &f)
				if len(got) != len(want) {
					t.Fatalf("step %d: Alerter %+v, Collector %+v", i+1, got, want)
				}
				for j := range got {
					if got[j] != want[j] {
						t.Fatalf("step %d: Alerter %+v, Collector %+v", i+1, got[j], want[j])
					}
				}
			}
		})
	}
	if got := NewAlerter(layers).Alerts(nil, &Frame{Step: 1}); got != nil {
		t.Errorf("a frame without layers: %+v", got)
	}
}
