package report

import (
	"math"
	"strconv"

	"github.com/normtop/normtop/probes"
)

// fmtNum prints a number with four significant digits; "—" for NaN.
func fmtNum(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	if math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// fmtSigned is fmtNum with a sign.
func fmtSigned(v float64) string {
	if v >= 0 {
		return "+" + fmtNum(v)
	}
	return fmtNum(v)
}

// fmtMS prints mean ± sd ("—" when no replicate has a value; the mean alone
// for a single replicate), each part by num.
func fmtMS(a agg, num func(float64) string) string {
	switch {
	case a.N == 0:
		return "—"
	case a.N == 1:
		return num(a.Mean)
	}
	return num(a.Mean) + " ± " + num(a.SD)
}

// fmtAgg is fmtMS with fmtNum and the number of seeds.
func fmtAgg(a agg) string {
	if a.N == 0 {
		return "—"
	}
	return fmtMS(a, fmtNum) + " (n=" + strconv.Itoa(a.N) + ")"
}

// metricFmt formats a metric value, "—" for NaN.
func metricFmt(m probes.Metric) func(float64) string {
	return func(v float64) string {
		if math.IsNaN(v) {
			return "—"
		}
		return m.Format(v)
	}
}

// sdMetric formats a metric's standard deviation: like the metric, but an
// accuracy's sd is in percentage points.
func metricMS(m probes.Metric, a agg) string {
	f := metricFmt(m)
	switch {
	case a.N == 0:
		return "—"
	case a.N == 1:
		return f(a.Mean)
	}
	sd := f(a.SD)
	if m == probes.MetricAccuracy {
		sd = strconv.FormatFloat(100*a.SD, 'f', 2, 64) + " pp"
	}
	return f(a.Mean) + " ± " + sd
}
