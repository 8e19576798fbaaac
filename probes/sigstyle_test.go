package probes

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// sigValues are the values the formatter's styles are checked over: every
// digit count's rounding boundaries (each power of ten and the values that
// round up to it, with their neighbouring floats), ties, both signs, zero
// and negative zero, subnormals, the largest float, and 200,000 seeded
// values spread over 2^-1074…2^1023 and over 1e-8…1e8 in detail.
func sigValues() []float64 {
	vs := []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, math.MaxFloat64, 1, 0.5, 0.05, 12345, 99999, 99999.5,
		0.00099995, 0.00099996, 0.0009999, 9.9995, 9.99949, 1.2345, 1.23450001, 0.12345, 125, 1250, 12500, 2.5e-5}
	for e := -12; e <= 12; e++ {
		p := math.Pow(10, float64(e))
		for _, f := range []float64{1, 9.5, 9.95, 9.995, 9.9995, 9.99995, 1.5, 1.05, 1.005, 1.0005, 2.25, 3.125} {
			v := f * p
			vs = append(vs, v, math.Nextafter(v, 0), math.Nextafter(v, math.Inf(1)))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		vs = append(vs, math.Float64frombits(r.Uint64()&^(1<<63|0x7ff<<52)|uint64(r.IntN(2047))<<52))
		vs = append(vs, math.Pow(10, r.Float64()*16-8)*(1+r.Float64()))
	}
	out := make([]float64, 0, 2*len(vs)+3)
	for _, v := range vs {
		out = append(out, v, -v)
	}
	return append(out, math.NaN(), math.Inf(1), math.Inf(-1))
}

// TestSigShortIsStrconvG: the report's style is strconv's %g byte for byte
// (the report's text did not move when fmtNum became SigShort.Format).
func TestSigShortIsStrconvG(t *testing.T) {
	for _, digits := range []int{1, 2, 3, 4, 5, 6} {
		bad := 0
		for _, v := range sigValues() {
			want := strconv.FormatFloat(v, 'g', digits, 64)
			if s, ok := NonFinite(v); ok {
				want = s
			}
			if got := SigShort.Format(v, digits); got != want && bad < 10 {
				bad++
				t.Errorf("SigShort.Format(%v, %d) = %q, %%g gives %q", v, digits, got, want)
			}
		}
	}
}

// TestSigKeptAsBefore: FormatSig (SigKept) writes every value as the rule
// it had before the styles shared one algorithm, kept here as the oracle.
func TestSigKeptAsBefore(t *testing.T) {
	for _, digits := range []int{1, 2, 3, 4, 5, 6} {
		bad := 0
		for _, v := range sigValues() {
			if got, want := FormatSig(v, digits), formatSigBefore(v, digits); got != want && bad < 10 {
				bad++
				t.Errorf("FormatSig(%v, %d) = %q, the former rule gives %q", v, digits, got, want)
			}
		}
	}
}

// formatSigBefore is FormatSig as it was written before SigStyle.
func formatSigBefore(v float64, digits int) string {
	if s, ok := NonFinite(v); ok {
		return s
	}
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a < 1e-3 || a >= 1e5 {
		return formatExp(v, digits)
	}
	mag := math.Floor(math.Log10(a))
	dec := max(digits-1-int(mag), 0)
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if r, _ := strconv.ParseFloat(s, 64); math.Abs(r) >= math.Pow(10, mag+1) && dec > 0 {
		s = strconv.FormatFloat(v, 'f', dec-1, 64)
	}
	return s
}
