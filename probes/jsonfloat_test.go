package probes

import (
	"encoding/json"
	"math"
	"testing"
)

func TestJSONFloat(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{math.NaN(), "null"},
		{math.Inf(1), `"+Inf"`},
		{math.Inf(-1), `"-Inf"`},
		{0, "0"},
		{-2.5, "-2.5"},
		{0.1, "0.1"},
		{1e300, "1e+300"},
		{math.SmallestNonzeroFloat64, "5e-324"},
	}
	for _, tt := range tests {
		b, err := json.Marshal(JSONFloat(tt.v))
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tt.v, b, err, tt.want)
		}
		if got := string(AppendJSONFloat([]byte("x"), tt.v)); got != "x"+tt.want {
			t.Errorf("AppendJSONFloat(%v) = %s, want x%s", tt.v, got, tt.want)
		}
		var back JSONFloat
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("Unmarshal(%s): %v", b, err)
		}
		if math.Float64bits(float64(back)) != math.Float64bits(tt.v) && !(math.IsNaN(tt.v) && math.IsNaN(float64(back))) {
			t.Errorf("round trip of %v gave %v", tt.v, float64(back))
		}
	}
}

func TestJSONFloatDecodesAliases(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{`"NaN"`, math.NaN()},
		{`"Inf"`, math.Inf(1)},
		{`"Infinity"`, math.Inf(1)},
		{`"-Infinity"`, math.Inf(-1)},
		{"3", 3},
	}
	for _, tt := range tests {
		var v JSONFloat
		if err := json.Unmarshal([]byte(tt.in), &v); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if got := float64(v); got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("%s decoded to %v, want %v", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{`"inf"`, `"x"`, "true"} {
		var v JSONFloat
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s decoded without error to %v", bad, float64(v))
		}
	}
}
