package norm

import (
	"github.com/normtop/normtop/normspec"
	"gorgonia.org/tensor"
	"strings"
	"testing"
)

func TestNewLayerErrors(t *testing.T) {
	tests := []struct {
		spec   string
		site   Site
		wantIn string
	}{
		{"powernorm:groups=3", Site{Name: "b0.ln1", D: 8, Dtype: f64}, "d=8 is not divisible by groups=3"},
		{"powernorm", Site{Name: "b0.ln1", D: 8, Heads: 3, Dtype: f64}, "not divisible by groups=3"},
		{"batchnorm:groups=5", Site{D: 8, Dtype: f64}, "not divisible"},
		{"pn-v:groups=3", Site{Name: "block0.ln1", D: 8, Dtype: f64}, "d=8 is not divisible by groups=3"},
		{"layernorm:conv=c", Site{Name: "x", D: 1, Dtype: f64}, "conv=c needs d ≥ 2"},
		{"adanorm:conv=c", Site{D: 1, Dtype: f64}, "conv=c needs d ≥ 2"},
		{"layernorm", Site{D: 0, Dtype: f64}, "d=0"},
		{"layernorm", Site{D: 4}, "dtype"},
	}
	for _, tt := range tests {
		cfg, err := normspec.Parse(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = NewLayer(cfg, tt.site)
		if err == nil || !strings.Contains(err.Error(), tt.wantIn) {
			t.Errorf("NewLayer(%q, %+v) = %v, want error containing %q", tt.spec, tt.site, err, tt.wantIn)
		}
	}
	// hand-built configs go through Validate
	for _, c := range []normspec.Config{{Kind: normspec.Kind(42)}, {Kind: normspec.LayerNorm}, {Kind: normspec.AdaNorm, Eps: 1e-5, C: -1, K: 0.1}, {Kind: normspec.RMSNorm, Eps: 1e-5, Conv: normspec.ConvC}} {
		if _, err := NewLayer(c, Site{D: 4, Dtype: f64}); err == nil {
			t.Errorf("NewLayer(%+v) accepted an invalid config", c)
		}
	}
}

var f64 = tensor.Float64
