package probes

import (
	"fmt"
	"math"
	"strconv"
)

// JSONFloat is a float64 in JSON by the one rule every normtop JSON output
// and the stream format (docs/formats.md) follow, since JSON has no
// non-finite numbers: NaN ("not measured") is null, ±Inf the strings "+Inf"
// and "-Inf". Decoding also accepts "NaN", "Inf", "Infinity", "-Infinity".
type JSONFloat float64

// AppendJSONFloat appends v by the JSONFloat rule, for hand-built JSON.
func AppendJSONFloat(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "null"...)
	case math.IsInf(v, 1):
		return append(b, `"+Inf"`...)
	case math.IsInf(v, -1):
		return append(b, `"-Inf"`...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

func (v JSONFloat) MarshalJSON() ([]byte, error) { return AppendJSONFloat(nil, float64(v)), nil }

func (v *JSONFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null", `"NaN"`:
		*v = JSONFloat(math.NaN())
		return nil
	case `"+Inf"`, `"Inf"`, `"Infinity"`:
		*v = JSONFloat(math.Inf(1))
		return nil
	case `"-Inf"`, `"-Infinity"`:
		*v = JSONFloat(math.Inf(-1))
		return nil
	}
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("%.40s is not a number", b)
	}
	*v = JSONFloat(x)
	return nil
}
