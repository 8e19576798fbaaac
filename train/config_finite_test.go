package train

import (
	"math"
	"strings"
	"testing"
)

// TestValidateRejectsNonFinite: NaN and ±Inf fail every float option with
// a message naming the option (NaN passes a plain `x < 0` check).
func TestValidateRejectsNonFinite(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"lr inf", func(c *Config) { c.LR = inf }, "lr +Inf"},
		{"lr nan", func(c *Config) { c.LR = nan }, "lr NaN"},
		{"clip nan", func(c *Config) { c.Clip = nan }, "clip NaN"},
		{"clip inf", func(c *Config) { c.Clip = inf }, "clip +Inf"},
		{"dropout nan", func(c *Config) { c.Dropout = nan }, "dropout NaN"},
		{"dropout -inf", func(c *Config) { c.Dropout = math.Inf(-1) }, "dropout -Inf"},
		{"variant lr inf", func(c *Config) { c.VariantLR = map[int]float64{0: inf} }, "variant-lr: +Inf"},
		{"variant lr nan", func(c *Config) { c.VariantLR = map[int]float64{0: nan} }, "variant-lr: NaN"},
	} {
		cfg := tinyTransformer()
		c.set(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate = %v, want an error containing %q", c.name, err, c.want)
		}
	}
	if err := tinyTransformer().Validate(); err != nil {
		t.Errorf("finite defaults: %v", err)
	}
}
