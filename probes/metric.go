package probes

import (
	"math"
	"strconv"
)

// Metric units, one convention for every output (exports, headless lines,
// dashboard, Markdown): accuracy is a percentage, bits per character a plain
// number. Eval.Metric itself stays a fraction in the run file; these
// functions are the only place where it becomes a percentage.

// MetricUnit is the unit an output shows metric in: "%" for accuracy,
// "bits/char" for bpc, "" otherwise.
func MetricUnit(metric string) string {
	switch metric {
	case "accuracy":
		return "%"
	case "bpc":
		return "bits/char"
	}
	return ""
}

// MetricValue is the number outputs show for a recorded Eval.Metric v:
// accuracy in percent (100·v, to 15 significant digits, so that 0.9742
// shows as 97.42 and not 97.42000000000002), anything else unchanged.
// Non-finite values pass through.
func MetricValue(metric string, v float64) float64 {
	if metric != "accuracy" || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p, _ := strconv.ParseFloat(strconv.FormatFloat(100*v, 'g', 15, 64), 64)
	return p
}
