package tui

import (
	"math"
	"strings"
)

const sparkRunes = "▁▂▃▄▅▆▇█"

// sparkline draws w cells from a history (min–max scaled over what is shown).
func sparkline(h *history, w int, smooth float64, logScale bool) string {
	if h == nil {
		return sparkValues(nil, w)
	}
	return sparkValues(valuesOf(h.View(w), smooth, logScale), w)
}

func sparkValues(vals []float64, w int) string {
	if len(vals) == 0 {
		return strings.Repeat(" ", w)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	runes := []rune(sparkRunes)
	var b strings.Builder
	for _, v := range vals {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0) || lo > hi:
			b.WriteByte(' ')
		case hi == lo:
			b.WriteRune(runes[len(runes)/2])
		default:
			i := int((v - lo) / (hi - lo) * float64(len(runes)-1))
			b.WriteRune(runes[clamp(i, 0, len(runes)-1)])
		}
	}
	return b.String() + strings.Repeat(" ", w-len(vals))
}
