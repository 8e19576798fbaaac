package probes

import (
	"math"
	"strconv"
)

// FormatLoss prints a loss in nats, or a difference of two (a generalization
// gap), as every output shows it: the dashboard's tables, the headless log,
// the Markdown export and the report. One rule: four significant digits in
// fixed notation ("4.225", "0.4127", "12.35") from 0.001 to 99,999, so that
// columns of losses line up without exponents; exponent notation outside
// ("2.371e-4"). A missing value (NaN) prints as Missing; ±Inf as "+Inf",
// "-Inf"; 0 as "0".
func FormatLoss(v float64) string {
	if s, ok := NonFinite(v); ok {
		return s
	}
	if v == 0 {
		return "0"
	}
	const digits = 4
	a := math.Abs(v)
	if a < 1e-3 || a >= 1e5 {
		s := strconv.FormatFloat(v, 'e', digits-1, 64)
		mant, exp, _ := cutExponent(s)
		return mant + "e" + exp
	}
	// Decimals for four significant digits at a's magnitude; re-rounded
	// when rounding carries into the next decade (9.9996 → "10.00").
	dec := max(digits-1-int(math.Floor(math.Log10(a))), 0)
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if r, _ := strconv.ParseFloat(s, 64); math.Abs(r) >= math.Pow(10, math.Floor(math.Log10(a))+1) && dec > 0 {
		s = strconv.FormatFloat(v, 'f', dec-1, 64)
	}
	return s
}

// cutExponent splits strconv's "2.371e-04" into "2.371" and "-4" (no
// padding zeros, no plus sign).
func cutExponent(s string) (mant, exp string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' {
			e, err := strconv.Atoi(s[i+1:])
			return s[:i], strconv.Itoa(e), err == nil
		}
	}
	return s, "", false
}
