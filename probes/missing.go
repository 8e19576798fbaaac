package probes

import "math"

// Missing is how every output prints a value that does not exist (not yet
// measured, never evaluated, a spread of a single seed): the dashboard, the
// headless log, the exports' text and the report all write this one glyph,
// an en dash, one terminal cell wide and never mistaken for a minus sign.
// (JSON outputs write null instead: JSONFloat.)
const Missing = "–"

// OrMissing is s, or Missing when s is empty (a header field a run does
// not carry).
func OrMissing(s string) string {
	if s == "" {
		return Missing
	}
	return s
}

// NonFinite is how every output prints a value that is not a finite
// number: Missing for NaN (not measured), "+Inf" and "-Inf"; ok is false for
// a finite v, which the caller formats by its own rule (Metric.Format,
// FormatLoss, the dashboard's 3 significant digits, the log's decimals).
func NonFinite(v float64) (s string, ok bool) {
	switch {
	case math.IsNaN(v):
		return Missing, true
	case math.IsInf(v, 1):
		return "+Inf", true
	case math.IsInf(v, -1):
		return "-Inf", true
	}
	return "", false
}
