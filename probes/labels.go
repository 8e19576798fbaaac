package probes

import (
	"math"
	"strconv"
)

// Split names an evaluation split, as carried by Eval.Split.
type Split string

// The evaluation splits.
const (
	SplitVal  Split = "val"
	SplitTest Split = "test"
)

// Metric names the evaluation metric of a run (RunMeta.Metric) and knows how
// to print it, so that every screen, log and export formats it one way.
type Metric string

// The metrics a run can carry. Accuracy is a fraction in [0,1]; the others
// are per-token costs.
const (
	MetricAccuracy   Metric = "accuracy"
	MetricBPC        Metric = "bpc" // bits per character
	MetricBPW        Metric = "bpw" // bits per word
	MetricPerplexity Metric = "ppl" // perplexity per token, exp(loss)
)

// Metric returns the run's metric.
func (m RunMeta) MetricKind() Metric { return Metric(m.Metric) }

// Name is the metric's name, "metric" when the run does not say.
func (m Metric) Name() string {
	if m == "" {
		return "metric"
	}
	return string(m)
}

// Short is the metric's name in tight columns: "acc" for accuracy.
func (m Metric) Short() string {
	if m == MetricAccuracy {
		return "acc"
	}
	return m.Name()
}

// HigherIsBetter reports whether a larger value is an improvement (accuracy)
// rather than a lower cost.
func (m Metric) HigherIsBetter() bool { return m == MetricAccuracy }

// Format prints a metric value v as every output shows it (dashboard,
// headless log, export summary, report). One significant-digit rule per
// unit: accuracy as a percentage with two decimals ("93.04%"), bits per
// character or word with three decimals ("1.234"), perplexity with two
// ("41.37"), an unknown metric with four significant digits. A missing
// value (NaN) prints as Missing; ±Inf as "+Inf", "-Inf" (callers that show
// "Diverge" decide that themselves).
func (m Metric) Format(v float64) string {
	if s, ok := NonFinite(v); ok {
		return s
	}
	switch m {
	case MetricAccuracy:
		return strconv.FormatFloat(m.Value(v), 'f', 2, 64) + "%"
	case MetricBPC, MetricBPW:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case MetricPerplexity:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// FormatSD prints a spread (a standard deviation or a difference) of the
// metric: like Format, except that an accuracy's spread is in percentage
// points ("0.41 pp", not "0.41%", which would read as a relative spread).
// An undefined spread (NaN: fewer than two values) prints as Missing.
func (m Metric) FormatSD(sd float64) string {
	if m == MetricAccuracy && !math.IsNaN(sd) && !math.IsInf(sd, 0) {
		return strconv.FormatFloat(100*sd, 'f', 2, 64) + " pp"
	}
	return m.Format(sd)
}

// FormatMeanSD prints a metric over seeds: MeanSD.Format with Format for
// the mean and FormatSD for the spread, e.g. "81.25% ± 0.41 pp".
func (m Metric) FormatMeanSD(a MeanSD) string { return a.FormatWith(m.Format, m.FormatSD) }

// Better reports whether metric value a is better than b; a NaN is never
// better and anything finite beats a NaN.
func (m Metric) Better(a, b float64) bool {
	if math.IsNaN(a) {
		return false
	}
	if math.IsNaN(b) {
		return true
	}
	if m.HigherIsBetter() {
		return a > b
	}
	return a < b
}

// Label names the variant on every screen, log line and export: its Group
// key followed by " s<seed>" when the run trains several seeds, e.g.
// "powernorm:alpha_fwd=0.95 s2". A space separates the seed because a spec
// never contains one.
func (v VariantMeta) Label() string {
	l := v.Group()
	if v.Seed != 0 {
		l += " s" + strconv.FormatInt(v.Seed, 10)
	}
	return l
}

// Group is the key the variant's seeds share: its full spec, or its
// registry name when the spec is empty. The dashboard's ranking and the
// report's mean ± sd over seeds group variants by it.
func (v VariantMeta) Group() string {
	if v.Spec == "" {
		return v.Name
	}
	return v.Spec
}

// VariantLabel is the label of variant v of the run, or "variant<v>" when v
// is out of range (a damaged or foreign Frame).
func (m RunMeta) VariantLabel(v int) string {
	if v < 0 || v >= len(m.Variants) {
		return "variant" + strconv.Itoa(v)
	}
	return m.Variants[v].Label()
}

// VariantGroup is the Group key of variant v of the run, or "variant<v>"
// when v is out of range.
func (m RunMeta) VariantGroup(v int) string {
	if v < 0 || v >= len(m.Variants) {
		return "variant" + strconv.Itoa(v)
	}
	return m.Variants[v].Group()
}

// LayerName is the name of norm site l, or "layer<l>" when l is out of range.
func (m RunMeta) LayerName(l int) string {
	if l >= 0 && l < len(m.Layers) {
		return m.Layers[l]
	}
	return "layer" + strconv.Itoa(l)
}
