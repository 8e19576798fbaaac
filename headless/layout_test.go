package headless

import (
	"bytes"
	"strings"
	"testing"

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
	run := func(meta probes.RunMeta, n int, layout Layout) []string {
		var buf bytes.Buffer
		p := New(&buf, meta, Options{Every: 2, Layout: layout})
		for _, f := range frames(n) {
			if err := p.Frame(f); err != nil {
				t.Fatal(err)
			}
		}
		p.Close()
		var steps []string
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			if strings.HasPrefix(l, "step ") {
				steps = append(steps, l)
			}
		}
		return steps
	}
	lines := run(wide, 4, LayoutAuto)
	if len(lines) != 2*4 {
		t.Fatalf("auto on a wide run: %d step lines, want 8 (rows):\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if len(l) > maxLineWidth {
			t.Errorf("a rows line of %d characters: %s", len(l), l)
		}
	}
	if n := len(run(wide, 4, LayoutColumns)); n != 2 {
		t.Errorf("columns on a wide run: %d step lines, want 2", n)
	}
	if n := len(run(fixtureMeta(), 2, LayoutAuto)); n != 2 {
		t.Errorf("auto on a narrow run: %d step lines, want 2 (columns)", n)
	}
	if n := len(run(fixtureMeta(), 2, LayoutRows)); n != 4 {
		t.Errorf("rows on a narrow run: %d step lines, want 4", n)
	}
}

func TestParseLayout(t *testing.T) {
	for s, want := range map[string]Layout{"auto": LayoutAuto, "columns": LayoutColumns, "rows": LayoutRows} {
		if got, err := ParseLayout(s); err != nil || got != want || got.String() != s {
			t.Errorf("ParseLayout(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseLayout("grid"); err == nil || !strings.Contains(err.Error(), "auto, columns, rows") {
		t.Errorf("ParseLayout(grid): %v", err)
	}
}
