package probes

import (
	"math"
	"testing"
)

func TestMetricFormatAndSD(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		metric   Metric
		v        float64
		want, sd string
	}{
		{MetricAccuracy, 0.8125, "81.25%", "81.25 pp"},
		{MetricAccuracy, 0.826, "82.60%", "82.60 pp"},
		{MetricAccuracy, 1, "100.00%", "100.00 pp"},
		{MetricBPC, 1.23456, "1.235", "1.235"},
		{MetricBPW, 7, "7.000", "7.000"},
		{MetricPerplexity, 41.3749, "41.37", "41.37"},
		{"", 0.123456, "0.1235", "0.1235"},
		{Metric("f1"), 12345.6, "1.235e+04", "1.235e+04"},
		{MetricAccuracy, nan, Missing, Missing},
		{MetricBPC, nan, Missing, Missing},
		{MetricBPC, inf, "+Inf", "+Inf"},
		{MetricAccuracy, -inf, "-Inf", "-Inf"},
	} {
		if got := c.metric.Format(c.v); got != c.want {
			t.Errorf("%q.Format(%v) = %q, want %q", c.metric, c.v, got, c.want)
		}
		if got := c.metric.FormatSD(c.v); got != c.sd {
			t.Errorf("%q.FormatSD(%v) = %q, want %q", c.metric, c.v, got, c.sd)
		}
	}
}

func TestMetricNamesAndBetter(t *testing.T) {
	if Metric("").Name() != "metric" || MetricAccuracy.Short() != "acc" || MetricBPC.Short() != "bpc" {
		t.Error("metric names")
	}
	for _, tc := range []struct {
		m    Metric
		a, b float64
		want bool
	}{
		{MetricAccuracy, 0.9, 0.8, true},
		{MetricAccuracy, 0.8, 0.9, false},
		{MetricBPC, 1.1, 1.2, true},
		{MetricBPC, 1.2, 1.1, false},
		{MetricBPC, math.NaN(), 1.1, false},
		{MetricBPC, 9, math.NaN(), true},
	} {
		if got := tc.m.Better(tc.a, tc.b); got != tc.want {
			t.Errorf("%q.Better(%v, %v) = %v", tc.m, tc.a, tc.b, got)
		}
	}
}

func TestMeanSD(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name     string
		xs       []float64
		n, miss  int
		mean, sd float64
		acc      string // FormatMeanSD under accuracy
	}{
		{"none", nil, 0, 0, nan, nan, Missing},
		{"all missing", []float64{nan, math.Inf(1)}, 0, 2, nan, nan, Missing},
		{"one: sd undefined", []float64{0.5, nan}, 1, 1, 0.5, nan, "50.00%"},
		{"two", []float64{0.5, 0.7}, 2, 0, 0.6, math.Sqrt(0.02), "60.00% ± 14.14 pp"},
		{"three equal", []float64{0.25, 0.25, 0.25}, 3, 0, 0.25, 0, "25.00% ± 0.00 pp"},
	} {
		a := NewMeanSD(c.xs)
		same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) || math.Abs(x-y) < 1e-12 }
		if a.N != c.n || a.Missing != c.miss || !same(a.Mean, c.mean) || !same(a.SD, c.sd) {
			t.Errorf("%s: NewMeanSD = %+v, want n %d missing %d mean %v sd %v", c.name, a, c.n, c.miss, c.mean, c.sd)
		}
		if got := MetricAccuracy.FormatMeanSD(a); got != c.acc {
			t.Errorf("%s: FormatMeanSD = %q, want %q", c.name, got, c.acc)
		}
	}
	one := NewMeanSD([]float64{1})
	if got := MetricBPC.FormatSD(one.SD); got != Missing {
		t.Errorf("one value's sd prints %q, want the missing glyph", got)
	}
}

func TestSEDiff(t *testing.T) {
	// √(s_a²/n_a + s_b²/n_b) for 2, 4, 6 (sd 2) and 1, 2 (sd √½).
	a, b := NewMeanSD([]float64{2, 4, 6}), NewMeanSD([]float64{1, 2})
	if got, want := SEDiff(a, b), math.Sqrt(4.0/3+0.5/2); math.Abs(got-want) > 1e-12 {
		t.Errorf("SEDiff = %v, want %v", got, want)
	}
	if !math.IsNaN(SEDiff(NewMeanSD([]float64{1}), b)) {
		t.Error("SEDiff with one value must be NaN")
	}
}

func TestNoiseOf(t *testing.T) {
	ms := func(xs ...float64) MeanSD { return NewMeanSD(xs) }
	for _, c := range []struct {
		name string
		a, b MeanSD
		want Noise
	}{
		{"two seeds a side", ms(1, 2), ms(5, 6), NoiseUnjudged},
		{"a side missing", ms(), ms(1, 2, 3), NoiseUnjudged},
		{"far apart", ms(1, 1.1, 0.9), ms(5, 5.1, 4.9), NoiseBeyond},
		{"overlapping", ms(1, 2, 3), ms(1.5, 2.5, 3.5), NoiseWithin},
		{"identical, no spread", ms(2, 2, 2), ms(2, 2, 2), NoiseWithin},
		{"different, no spread", ms(2, 2, 2), ms(3, 3, 3), NoiseBeyond},
	} {
		if got := NoiseOf(c.a, c.b); got != c.want {
			t.Errorf("%s: NoiseOf = %v, want %v", c.name, got, c.want)
		}
	}
	if NoiseBeyond.String() != "beyond noise" || NoiseWithin.String() != "within noise" || NoiseUnjudged.String() != "" {
		t.Error("Noise.String")
	}
}

func TestGroupKeyAndLabel(t *testing.T) {
	for _, c := range []struct {
		v            VariantMeta
		group, label string
	}{
		{VariantMeta{Name: "layernorm"}, "layernorm", "layernorm"},
		{VariantMeta{Name: "powernorm", Spec: "powernorm:alpha_fwd=0.95", Seed: 2}, "powernorm:alpha_fwd=0.95", "powernorm:alpha_fwd=0.95 s2"},
		{VariantMeta{Name: "batchnorm", Seed: 1}, "batchnorm", "batchnorm s1"},
	} {
		if g, l := c.v.Group(), c.v.Label(); g != c.group || l != c.label {
			t.Errorf("%+v: Group %q Label %q, want %q %q", c.v, g, l, c.group, c.label)
		}
	}
	if got := (RunMeta{}).VariantGroup(3); got != "variant3" {
		t.Errorf("VariantGroup out of range = %q", got)
	}
	if OrMissing("") != Missing || OrMissing("x") != "x" {
		t.Error("OrMissing")
	}
}

func TestFormatLoss(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{4.22491, "4.225"},
		{0.41274, "0.4127"},
		{12.3456, "12.35"},
		{123.456, "123.5"},
		{99999.4, "99999"},
		{0.00123456, "0.001235"},
		{9.99961, "10.00"},
		{0.99996, "1.000"},
		{-0.0873, "-0.08730"},
		{0.000237149, "2.371e-4"},
		{123456, "1.235e5"},
		{0, "0"},
		{math.NaN(), Missing},
		{math.Inf(1), "+Inf"},
		{math.Inf(-1), "-Inf"},
	} {
		if got := FormatLoss(tc.v); got != tc.want {
			t.Errorf("FormatLoss(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestNonFinite: the one spelling of a value that is not a finite number,
// which every formatter of every output starts with.
func TestNonFinite(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
		ok   bool
	}{
		{math.NaN(), Missing, true}, {math.Inf(1), "+Inf", true}, {math.Inf(-1), "-Inf", true},
		{0, "", false}, {-1e300, "", false}, {math.SmallestNonzeroFloat64, "", false},
	} {
		if s, ok := NonFinite(tc.v); s != tc.want || ok != tc.ok {
			t.Errorf("NonFinite(%v) = %q, %v; want %q, %v", tc.v, s, ok, tc.want, tc.ok)
		}
		for name, f := range map[string]func(float64) string{"FormatLoss": FormatLoss, "Metric.Format": MetricPerplexity.Format} {
			if got := f(tc.v); tc.ok && got != tc.want {
				t.Errorf("%s(%v) = %q, want %q", name, tc.v, got, tc.want)
			}
		}
	}
}

// TestFormatValue: the dashboard's three significant digits (the cases
// the dashboard's own formatter was tested with before it became this one).
func TestFormatValue(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{math.NaN(), Missing}, {math.Inf(1), "+Inf"}, {math.Inf(-1), "-Inf"}, {0, "0"},
		{0.5, "0.500"}, {1.23456, "1.23"}, {12345, "12345"}, {999.96, "1000"}, {9.996, "10.0"}, {0.0099996, "0.0100"},
		{1e-9, "1.00e-9"}, {123456, "1.23e5"}, {-0.002, "-0.00200"}, {0.008575, "0.00857"}, {2.37e-4, "2.37e-4"},
	}
	for _, tc := range tests {
		if got := FormatValue(tc.in); got != tc.want {
			t.Errorf("FormatValue(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
