package probes

import (
	"math"
	"strconv"
	"testing"
)

func TestMetricValue(t *testing.T) {
	for _, c := range []struct {
		metric Metric
		v      float64
		want   string
	}{
		{MetricAccuracy, 0.9742, "97.42"},
		{MetricAccuracy, 4871.0 / 5000, "97.42"},
		{MetricAccuracy, 1, "100"},
		{MetricAccuracy, 0.07, "7"},
		{MetricBPC, 1.2345678901234567, "1.2345678901234567"},
		{MetricAccuracy, math.NaN(), "NaN"},
		{"", 0.5, "0.5"},
	} {
		if got := strconv.FormatFloat(c.metric.Value(c.v), 'g', -1, 64); got != c.want {
			t.Errorf("%q.Value(%v) = %s, want %s", c.metric, c.v, got, c.want)
		}
	}
	if MetricAccuracy.Unit() != "%" || MetricBPC.Unit() != "bits/char" || MetricPerplexity.Unit() != "" {
		t.Error("Unit")
	}
	// Format shows the same number Value gives.
	if got := MetricAccuracy.Format(4871.0 / 5000); got != "97.42%" {
		t.Errorf("Format = %s", got)
	}
}
