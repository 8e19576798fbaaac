package main

import (
	"strings"
	"testing"

	"github.com/normtop/normtop/train"
)

// TestPlacementFlag: --placement reaches the config, --post-ln is its
// alias, and a bad value, a model without blocks or a contradiction is a
// usage error.
func TestPlacementFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want train.Placement
		err  string
	}{
		{nil, "", ""},
		{[]string{"--placement", "sandwich"}, train.PlaceSandwich, ""},
		{[]string{"--post-ln"}, train.PlacePost, ""},
		{[]string{"--post-ln", "--placement", "post"}, train.PlacePost, ""},
		{[]string{"--model", "classifier", "--placement", "deepnorm"}, train.PlaceDeepNorm, ""},
		{[]string{"--placement", "middle"}, "", `placement "middle": want pre, post, sandwich, deepnorm`},
		{[]string{"--model", "mlp", "--placement", "pre"}, "", "model mlp has no Transformer blocks"},
		{[]string{"--model", "cnn", "--post-ln"}, "", "--post-ln: model cnn has no Transformer blocks"},
		{[]string{"--post-ln", "--placement", "deepnorm"}, "", "give one of them"},
	} {
		o, _, err := parseTrain(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || exitCode(err) != exitUsage {
				t.Errorf("%q: %v (exit %d), want %q, exit 2", tc.args, err, exitCode(err), tc.err)
			}
			continue
		}
		if err != nil || o.cfg.Placement != tc.want {
			t.Errorf("%q: placement %q, %v; want %q", tc.args, o.cfg.Placement, err, tc.want)
		}
	}
}
