package normspec

import (
	"strings"
	"testing"
)

// TestFull: every option of the kind is written, defaults included, and
// the spec reads back as the same configuration.
func TestFull(t *testing.T) {
	for _, spec := range []string{"layernorm", "batchnorm", "powernorm:alpha_fwd=0.95,warmup=400", "adanorm:k=0.2", "pn-v", "none"} {
		c, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		full := c.Full()
		if c.Kind == PowerNorm && !strings.Contains(full, "alpha_fwd=") {
			t.Errorf("%s: Full %q lacks alpha_fwd", spec, full)
		}
		for _, o := range kindOptions(c.Kind) {
			if _, ok := c.optionValue(o); ok && !strings.Contains(full, o+"=") {
				t.Errorf("%s: Full %q lacks option %s", spec, full, o)
			}
		}
		back, err := Parse(strings.NewReplacer("warmup=site,", "", ",warmup=site", "", "groups=site,", "", ",groups=site", "", "groups=site", "", "bwd=code,", "", ",bwd=code", "").Replace(full))
		if err != nil {
			t.Errorf("%s: Full %q does not parse: %v", spec, full, err)
			continue
		}
		if back != c {
			t.Errorf("%s: Full %q reads back as %+v, want %+v", spec, full, back, c)
		}
	}
}
