package headless

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestHeaderInputVariance: a token model's header line carries the
// variance of its first block's input (the run header's input_var), in
// both formats; a run without it prints nothing in its place.
func TestHeaderInputVariance(t *testing.T) {
	for _, c := range []struct {
		format Format
		want   string
	}{{Text, ", input variance 1.101 at the first block"}, {JSON, `"input_var":"1.101"`}} {
		meta := fixtureMeta()
		meta.Config = map[string]string{"input_var": "1.101"}
		var buf bytes.Buffer
		p := New(&buf, meta, Options{Format: c.format, Every: 1})
		if err := p.Frame(fixtureFrames()[0]); err != nil {
			t.Fatal(err)
		}
		// The text header is broken onto "#     " continuation lines.
		header, _, _ := strings.Cut(regexp.MustCompile(`\n#\s+`).ReplaceAllString(buf.String(), " "), "\n")
		if !strings.Contains(header, c.want) {
			t.Errorf("format %v: header %q lacks %q", c.format, header, c.want)
		}
	}
	if got := render(t, fixtureFrames(), Options{Format: Text, Every: 1}); strings.Contains(got, "input variance") {
		t.Error("input variance printed for a run without one")
	}
}
