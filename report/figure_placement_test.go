package report

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestPlacementFigures: (vi-a)'s figure plots, per depth and placement,
// the step-1 gw_norm of each block's FFN first matrix (the mean over seeds
// of exactly the values the finding divides), and (vi-b)'s the loss curves
// of pre and post with and without warm-up.
func TestPlacementFigures(t *testing.T) {
	r, err := Build(placementRuns(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	fig := r.FindingFigure(findingByID(t, r, "vi-a"))
	if fig.Empty != "" || len(fig.Panels) == 0 {
		t.Fatalf("(vi-a) figure: %q, %d panels", fig.Empty, len(fig.Panels))
	}
	_, ps := placedGroups(r.Groups)
	checked := 0
	for _, panel := range fig.Panels {
		L, _ := strconv.Atoi(panel.Title[:len(panel.Title)-len(" blocks")])
		for _, s := range panel.Series {
			if s.Kind != Line {
				continue
			}
			placement, site := "pre", ".ln2"
			if s.Label == "post-LN" {
				placement, site = "post", ".ln1"
			}
			p := findPlaced(ps, placement, L, -1)
			if len(s.Points) != L {
				t.Fatalf("%s at %d blocks: %d points, want one per block", s.Label, L, len(s.Points))
			}
			for b, pt := range s.Points {
				var sum float64
				for _, rep := range p.g.Reps {
					sum += siteNamed("block"+strconv.Itoa(b)+site)(rep, p.g.Layers)
				}
				want := sum / float64(len(p.g.Reps))
				if pt.X != float64(b) || math.Abs(pt.Y-want) > 1e-12*math.Abs(want) {
					t.Errorf("%s, %d blocks, block %d: plotted (%g, %g), want (%d, %g)", s.Label, L, b, pt.X, pt.Y, b, want)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no point of the (vi-a) figure was checked")
	}
	wf := r.FindingFigure(findingByID(t, r, "vi-b"))
	if wf.Empty != "" || len(wf.Panels) != 2 || wf.Title[:6] != "(vi-b)" {
		t.Errorf("(vi-b) figure: %q %q, %d panels", wf.Title, wf.Empty, len(wf.Panels))
	}
}

// TestLSTMFigure: (vii)'s figure draws the loss curves of layernorm and the
// plain LSTM beside h_norm_cv at lstm0.h, one line per seed holding exactly
// the recorded values (100 steps: nothing thinned).
func TestLSTMFigure(t *testing.T) {
	fx := lstmFixture([]int64{1, 2, 3}, 1.0/15, 0.2)
	r, err := Build([]string{fx.write(t, t.TempDir(), "lstm.ntr")})
	if err != nil {
		t.Fatal(err)
	}
	fig := r.FindingFigure(findingByID(t, r, "vii"))
	if fig.Empty != "" || len(fig.Panels) != 2 || !strings.HasPrefix(fig.Title, "(vii)") {
		t.Fatalf("(vii) figure %q %q, %d panels", fig.Title, fig.Empty, len(fig.Panels))
	}
	lines := 0
	for _, s := range fig.Panels[1].Series {
		if len(s.Points) != 100 {
			t.Fatalf("%q: %d points, want the 100 recorded steps", s.Label, len(s.Points))
		}
		for _, pt := range s.Points {
			if pt.Y < 0.1 || pt.Y > 0.5 { // the fixture's h_norm_cv: 0.2 (layernorm) or 0.4 (none), ±2% noise
				t.Fatalf("%q at step %g: %g is no h_norm_cv of the fixture", s.Label, pt.X, pt.Y)
			}
		}
		lines++
	}
	if lines != 6 {
		t.Errorf("%d h_norm_cv lines, want one per seed of layernorm and none (6)", lines)
	}
}
