package train

import (
	"slices"
	"strings"
	"testing"
)

// TestFFNWidth: Config.FFN sets the shapes of every block's FFN matrices
// under both inputs (4·d when 0), is validated, and is recorded in the
// run's header.
func TestFFNWidth(t *testing.T) {
	for _, input := range []string{InputLearned, InputFairseq} {
		for _, tc := range []struct{ ffn, want int }{{0, 64}, {24, 24}} {
			c := tinyTransformer()
			c.Input, c.FFN = input, tc.ffn
			for _, w := range c.languageModel(10).Weights() {
				switch {
				case strings.HasSuffix(w.Name, "ffn.fc.w") && !slices.Equal(w.Shape, []int{16, tc.want}),
					strings.HasSuffix(w.Name, "ffn.proj.w") && !slices.Equal(w.Shape, []int{tc.want, 16}):
					t.Errorf("%s input, ffn %d: %s has shape %v", input, tc.ffn, w.Name, w.Shape)
				}
			}
		}
	}
	c := tinyTransformer()
	c.FFN = -1
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "ffn -1") {
		t.Errorf("ffn -1: %v", err)
	}
	c.FFN, c.Steps = 24, 1
	r, err := NewRunner(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Meta().Config["ffn"]; got != "24" {
		t.Errorf("header ffn = %q, want 24", got)
	}
}
