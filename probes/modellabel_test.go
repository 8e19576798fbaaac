package probes

import "testing"

func TestModelLabel(t *testing.T) {
	for _, tc := range []struct {
		model string
		cfg   map[string]string
		want  string
	}{
		{"mlp", map[string]string{"sizes": "784-256-256-10"}, "mlp"},
		{"transformer", map[string]string{"layers": "6", "placement": "post"}, "transformer (6 blocks, post)"},
		{"transformer", map[string]string{"layers": "2", "post_ln": "true"}, "transformer (2 blocks, post)"},
		{"transformer", map[string]string{"layers": "2", "post_ln": "false"}, "transformer (2 blocks)"},
		{"classifier", map[string]string{"placement": "deepnorm"}, "classifier (deepnorm)"},
		{"", map[string]string{"layers": "2"}, ""},
	} {
		if got := (RunMeta{Model: tc.model, Config: tc.cfg}).ModelLabel(); got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.model, tc.cfg, got, tc.want)
		}
	}
}
