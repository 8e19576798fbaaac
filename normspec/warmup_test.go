package normspec

import "testing"

func TestWarmupSteps(t *testing.T) {
	tests := []struct {
		spec string
		want int
	}{
		{"batchnorm", 60},
		{"batchnorm:momentum=0.1", 30},
		{"batchnorm:momentum=0.07", 43},
		{"pn-v", 30},
		{"powernorm", 30},
		{"powernorm:alpha_fwd=0.95", 60},
		{"powernorm:alpha_fwd=0.99", 300},
		{"layernorm", 0},
		{"rmsnorm", 0},
		{"none", 0},
		{"adanorm", 0},
	}
	for _, tc := range tests {
		c, err := Parse(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if got := c.WarmupSteps(); got != tc.want {
			t.Errorf("%s: WarmupSteps = %d, want %d", tc.spec, got, tc.want)
		}
	}
}
