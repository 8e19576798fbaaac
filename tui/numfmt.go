package tui

import (
	"math"
	"strconv"
	"strings"

	"github.com/normtop/normtop/probes"
)

// fmt3 writes a value with 3 significant digits: fixed notation from 0.001
// to 99,999, exponent notation outside (2.37e-4); NaN is probes.Missing.
func fmt3(v float64) string {
	if s, ok := probes.NonFinite(v); ok {
		return s
	}
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a >= 1e-3 && a < 1e5 {
		if a >= 100 {
			return strconv.FormatFloat(v, 'f', 0, 64)
		}
		dec := 2 - int(math.Floor(math.Log10(a)))
		s := strconv.FormatFloat(v, 'f', dec, 64)
		// 9.995 rounds to 10.00: re-round at the new magnitude.
		if r, _ := strconv.ParseFloat(s, 64); math.Abs(r) >= 10*math.Pow(10, math.Floor(math.Log10(a))) {
			s = strconv.FormatFloat(v, 'f', max(dec-1, 0), 64)
		}
		return s
	}
	return fmtExp(v)
}

// fmtExp is 3 significant digits in exponent notation without the padding
// of %e: 2.37e-4, 1.5e6 stays 1.50e6.
func fmtExp(v float64) string {
	s := strconv.FormatFloat(v, 'e', 2, 64)
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return mant + "e" + strconv.Itoa(e)
}

// colFormat returns the formatter of one table column: 3 significant
// digits, and exponent notation for every cell as soon as one needs it, so
// a column never mixes 2.37e-4 with 0.00858.
func colFormat(vals []float64) func(float64) string {
	for _, v := range vals {
		a := math.Abs(v)
		if a != 0 && !math.IsNaN(a) && !math.IsInf(a, 0) && (a < 1e-3 || a >= 1e5) {
			return func(v float64) string {
				if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt3(v)
				}
				return fmtExp(v)
			}
		}
	}
	return fmt3
}

func pow10(v float64) float64 { return math.Pow(10, v) }

// fmtVal prints a probe value in at most 8 cells, 3 significant digits.
func fmtVal(v float64) string { return fmt3(v) }
