package probes

import (
	"math"
	"strconv"
	"testing"
)

func TestMetricValue(t *testing.T) {
	for _, c := range []struct {
		metric string
		v      float64
		want   string
	}{
		{"accuracy", 0.9742, "97.42"},
		{"accuracy", 4871.0 / 5000, "97.42"},
		{"accuracy", 1, "100"},
		{"accuracy", 0.07, "7"},
		{"bpc", 1.2345678901234567, "1.2345678901234567"},
		{"accuracy", math.NaN(), "NaN"},
		{"", 0.5, "0.5"},
	} {
		if got := strconv.FormatFloat(MetricValue(c.metric, c.v), 'g', -1, 64); got != c.want {
			t.Errorf("MetricValue(%q, %v) = %s, want %s", c.metric, c.v, got, c.want)
		}
	}
	if MetricUnit("accuracy") != "%" || MetricUnit("bpc") != "bits/char" || MetricUnit("x") != "" {
		t.Error("MetricUnit")
	}
}
