package probes

import (
	"math"
	"testing"
)

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
