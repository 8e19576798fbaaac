package probes

// The presentation vocabulary: how every output (the dashboard, the headless
// log, the exports, the report) names and prints what a run measured — the
// splits and metrics, the variants' labels, the units, the one glyph for a
// missing value and the one significant-digit formatter. A fact printed
// here is printed alike everywhere.

import (
	"math"
	"strconv"
	"strings"
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
	return SigShort.Format(v, 4)
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

// The significant-digit formatter every output uses: the dashboard's
// values (three digits), the losses of every table, log and report (four),
// and a column of values spanning decades (exponent notation throughout).

// LossDigits and ValueDigits are the significant digits of a loss (or a
// gap: FormatLoss) and of any other measured value (a probe, a rate, a
// threshold: FormatValue).
const (
	LossDigits  = 4
	ValueDigits = 3
)

// FormatLoss prints a loss in nats, or a difference of two (a generalization
// gap), as every output shows it: the dashboard's tables, the headless log,
// the Markdown export and the report: FormatSig with LossDigits.
func FormatLoss(v float64) string { return FormatSig(v, LossDigits) }

// FormatValue prints a measured value (a probe, a rate, a threshold) as the
// dashboard shows it: FormatSig with ValueDigits.
func FormatValue(v float64) string { return FormatSig(v, ValueDigits) }

// FormatSig is the one rule for a number with a few significant digits,
// in the style every consumer but the report's prose uses (SigKept): fixed
// notation from 0.001 to 99,999, so that columns line up without exponents
// ("4.225", "0.4127", "12.35" at four digits; a number of more integer
// digits than that keeps them: "12346"); exponent notation outside, without
// strconv's padding ("2.371e-4", "1.235e5"). A missing value (NaN) prints as
// Missing, ±Inf as "+Inf", "-Inf" (NonFinite), 0 as "0".
func FormatSig(v float64, digits int) string { return SigKept.Format(v, digits) }

// A SigStyle is how the one significant-digit formatter (Format) writes a
// number once it is rounded: which magnitudes take an exponent, how the
// exponent is spelled, and whether trailing zeros stay.
type SigStyle uint8

const (
	// SigKept is FormatSig's: trailing zeros stay ("1.500": four digits
	// shown are four digits measured, and a column's decimals line up);
	// plain for 1e-3 ≤ |v| < 1e5 (of v before rounding), else an exponent
	// without padding ("1.5e6"); zero is "0".
	SigKept SigStyle = iota
	// SigShort is the report's prose (its tables' numbers, ratios and
	// slopes), strconv's %g byte for byte: trailing zeros dropped ("1.5"),
	// plain while the rounded decimal exponent is in [-4, digits), else an
	// exponent as strconv writes it ("1.5e+06", "2e-05").
	SigShort
)

// Format writes v rounded to digits significant digits (digits ≥ 1) in
// style st. Both styles round once, the same way (strconv's exponent form
// gives the digits and the decimal exponent x), and a plain number shows
// the digits down to the last significant one (digits-1-x decimals, none
// past the units); they differ only in the three rules SigStyle names.
// NaN and ±Inf are NonFinite's.
func (st SigStyle) Format(v float64, digits int) string {
	if s, ok := NonFinite(v); ok {
		return s
	}
	short := st == SigShort
	if v == 0 && !short {
		return "0" // not "0.000": an exact zero has no digits to keep
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(v, 'e', digits-1, 64), "e")
	x, _ := strconv.Atoi(exp)
	var plain bool
	if short {
		plain = x >= -4 && x < digits
	} else {
		a := math.Abs(v)
		plain = a >= 1e-3 && a < 1e5
	}
	switch {
	case plain && short:
		return trimZeros(strconv.FormatFloat(v, 'f', max(digits-1-x, 0), 64))
	case plain:
		return strconv.FormatFloat(v, 'f', max(digits-1-x, 0), 64)
	case short:
		return trimZeros(mant) + "e" + exp
	}
	return mant + "e" + strconv.Itoa(x)
}

// trimZeros drops a decimal number's trailing zeros after its point, and
// the point when nothing is left after it ("1.500" → "1.5", "2.000" → "2").
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// FormatSigExp is FormatSig in exponent notation whatever the magnitude
// (0 and non-finite values as FormatSig prints them): for a column or a
// row of values spanning decades, so that it never mixes 2.37e-4 with
// 0.00858.
func FormatSigExp(v float64, digits int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return FormatSig(v, digits)
	}
	return formatExp(v, digits)
}

// formatExp is digits significant digits in exponent notation without
// strconv's padding: "2.371e-04" becomes "2.371e-4", "1.50e+06" "1.50e6".
func formatExp(v float64, digits int) string {
	s := strconv.FormatFloat(v, 'e', digits-1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return mant + "e" + strconv.Itoa(e)
}
