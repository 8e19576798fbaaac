package report

import (
	"strconv"

	"github.com/normtop/normtop/probes"
)

// fmtNum prints a number of the report's prose and tables with four
// significant digits, in the one formatter's short style
// (probes.SigShort: "1.5", "2.371e-05"; probes.Missing for NaN).
func fmtNum(v float64) string { return probes.SigShort.Format(v, 4) }

// fmtSigned is fmtNum with a sign.
func fmtSigned(v float64) string {
	if v >= 0 {
		return "+" + fmtNum(v)
	}
	return fmtNum(v)
}

// fmtMS prints mean ± sd, each part by num (probes.MeanSD.Format: the mean
// alone for a single replicate, probes.Missing for none).
func fmtMS(a probes.MeanSD, num func(float64) string) string { return a.Format(num) }

// fmtAgg is fmtMS with fmtNum and the number of seeds.
func fmtAgg(a probes.MeanSD) string {
	if a.N == 0 {
		return probes.Missing
	}
	return fmtMS(a, fmtNum) + " (n=" + strconv.Itoa(a.N) + ")"
}

// metricMS formats a metric over seeds (probes.Metric.FormatMeanSD: an
// accuracy's sd is in percentage points).
func metricMS(m probes.Metric, a probes.MeanSD) string { return m.FormatMeanSD(a) }
