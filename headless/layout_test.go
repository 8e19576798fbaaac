package headless

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/normtop/normtop/probes"
)

// TestGoldenRows: the fixture run one line per variant per log step.
func TestGoldenRows(t *testing.T) {
	checkGolden(t, "every2.rows.txt.golden", render(t, fixtureFrames(), Options{Format: Text, Every: 2, Layout: LayoutRows}))
}

// TestLayoutAuto: a run whose columns line would pass 160 characters (the
// default run's four variants with options) is written in rows, none of
// its lines that long; a narrow run stays in columns; an explicit layout
// wins either way.
func TestLayoutAuto(t *testing.T) {
	wide := fixtureMeta()
	wide.Variants = nil
	for _, s := range []string{"layernorm", "batchnorm", "pn-v:alpha_fwd=0.9,warmup=400", "powernorm:alpha_fwd=0.9,alpha_bwd=0.9,warmup=4000"} {
		wide.Variants = append(wide.Variants, probes.VariantMeta{Name: strings.SplitN(s, ":", 2)[0], Spec: s})
	}
	frames := func(n int) []probes.Frame {
		var fs []probes.Frame
		for step := 1; step <= 4; step++ {
			for v := range n {
				fs = append(fs, probes.Frame{Variant: v, Step: step, TrainLoss: 2, StepsPerSec: 12.5})
			}
		}
		return fs
	}
	// run returns the step lines and the variant lines of the rows layout.
	run := func(meta probes.RunMeta, n int, layout Layout) (steps, rows []string) {
		var buf bytes.Buffer
		p := New(&buf, meta, Options{Every: 2, Layout: layout})
		for _, f := range frames(n) {
			if err := p.Frame(f); err != nil {
				t.Fatal(err)
			}
		}
		p.Close()
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			if layout != LayoutColumns && utf8.RuneCountInString(l) > maxLineWidth {
				t.Errorf("%v: a line of %d columns: %s", layout, utf8.RuneCountInString(l), l)
			}
			switch {
			case strings.HasPrefix(l, "step "):
				steps = append(steps, l)
			case strings.HasPrefix(l, "  "):
				rows = append(rows, l)
			}
		}
		return steps, rows
	}
	if steps, rows := run(wide, 4, LayoutAuto); len(steps) != 2 || len(rows) != 2*4 {
		t.Fatalf("auto on a wide run: %d step lines and %d variant lines, want 2 and 8 (rows):\n%s", len(steps), len(rows), strings.Join(rows, "\n"))
	}
	if steps, rows := run(wide, 4, LayoutColumns); len(steps) != 2 || len(rows) != 0 {
		t.Errorf("columns on a wide run: %d step lines, %d variant lines, want 2 and 0", len(steps), len(rows))
	}
	narrow := fixtureMeta()
	narrow.Variants, narrow.Metric = narrow.Variants[:1], ""
	if steps, rows := run(narrow, 1, LayoutAuto); len(steps) != 2 || len(rows) != 0 {
		t.Errorf("auto on a narrow run: %d step lines, %d variant lines, want 2 and 0 (columns)", len(steps), len(rows))
	}
	if steps, rows := run(fixtureMeta(), 2, LayoutRows); len(steps) != 2 || len(rows) != 4 {
		t.Errorf("rows on a narrow run: %d step lines, %d variant lines, want 2 and 4", len(steps), len(rows))
	}
}
