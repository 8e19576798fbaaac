package probes

import (
	"math"
	"strconv"
)

// One unit convention for every output (exports, headless lines and JSON,
// dashboard, Markdown, reports): accuracy is a percentage, the per-token
// costs plain numbers. Eval.Metric stays a fraction in the run file; Value
// is the one place where it becomes a percentage.

// Unit is the unit outputs show m in: "%" for accuracy, "bits/char",
// "bits/word", "" for perplexity and unknown metrics.
func (m Metric) Unit() string {
	switch m {
	case MetricAccuracy:
		return "%"
	case MetricBPC:
		return "bits/char"
	case MetricBPW:
		return "bits/word"
	}
	return ""
}

// Value is the number outputs show for a recorded Eval.Metric v: accuracy
// in percent (100·v to 15 significant digits, so that 0.9742 shows as 97.42
// and not 97.42000000000002), anything else unchanged. Non-finite values
// pass through.
func (m Metric) Value(v float64) float64 {
	if m != MetricAccuracy || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p, _ := strconv.ParseFloat(strconv.FormatFloat(100*v, 'g', 15, 64), 64)
	return p
}
