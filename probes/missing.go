package probes

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
